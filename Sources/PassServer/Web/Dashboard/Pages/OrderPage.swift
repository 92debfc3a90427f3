import Foundation
import Storage

/// An order in the dashboard (`GET /admin/orders/{orderId}`): its buyer, its email (sent again
/// from here), for an admin the buyer's page and its `.pkpasses` files, and its tickets, each
/// linking to its own ticket page. It reads nothing: the controller gathers the values.
struct OrderPage {
    var order: Order
    var event: Event
    var visitor: DashboardSessions.Visitor
    var mailEnabled = false
    /// The buyer's page and each `.pkpasses` file (with how many passes); nil for a viewer (the
    /// page holds every ticket's link).
    var links: (page: String, files: [(url: String, count: Int)])?
    var notice: DashboardLayout.Notice?

    /// How the dashboard names an order: the organizer's id for it, else ours.
    static func name(_ order: StoredOrder) -> String {
        order.externalID ?? order.id
    }

    func render() -> HTML {
        let stored = order.order
        let name = Self.name(stored)
        var body: HTML = """
            <p class="crumbs"><a href="/admin/">Events</a> › <a href="/admin/events/\(event.id)">\(event.name)</a></p>
            <div class="page-head"><div>
            <h1>Order \(name)</h1>
            <p class="subtitle">\(DashboardLayout.count(order.tickets.count)) \(order.tickets.count == 1 ? "ticket" : "tickets"), \
            \(DashboardLayout.count(order.activeTickets.count)) active · id <code id="order-id">\(stored.id)</code></p>
            </div></div>
            <dl class="counts" id="order-facts">
            <div><dt>Buyer</dt><dd id="order-buyer">\(stored.buyerName ?? "—")</dd></div>
            <div><dt>Buyer's email</dt><dd id="order-buyer-email">\(stored.buyerEmail ?? "—")</dd></div>
            <div><dt>Issued</dt><dd>\(DashboardLayout.dateText(stored.createdAt, timeZone: event.timeZone))</dd></div>
            </dl>
            """
        if let links {
            let files = links.files.enumerated().map { index, file -> HTML in
                #"<li><a href="\#(url: file.url)">\#(links.files.count == 1 ? "All passes" : "Part \(index + 1) of \(links.files.count)") (.pkpasses, \#(file.count) \#(file.count == 1 ? "pass" : "passes"))</a></li>"#
            }
            body += """
                <h2>The buyer's page</h2>
                <p><a id="order-link" href="\(url: links.page)">\(links.page)</a></p>
                \(files.isEmpty ? HTML.empty : "<ul id=\"order-files\">\(HTML(joining: files))</ul>")
                """
        }
        body += email
        let rows = order.tickets.map { ticket -> HTML in
            let pass = ticket.pass
            let status: HTML = ticket.isActive ? #"<td class="status-ok">active</td>"# : #"<td class="status-bad">cancelled</td>"#
            return """
                <tr><td><a href="/admin/tickets/\(pass.serialNumber.rawValue)">\(PassService.shownName(pass))</a></td><td>\(pass.seat ?? "—")</td>\(status)\
                <td>\(ticket.checkIn.map { DashboardLayout.dateText($0.checkedInAt, timeZone: event.timeZone) } ?? "—")</td></tr>
                """
        }
        body += """
            <h2>Tickets</h2>
            <div class="table-wrap"><table id="order-tickets"><caption class="sr-only">Tickets of the order</caption>
            <thead><tr><th scope="col">Attendee</th><th scope="col">Seat</th><th scope="col">Status</th><th scope="col">Checked in</th></tr></thead>
            <tbody>\(HTML(joining: rows))</tbody></table></div>
            """
        return DashboardLayout.page(title: "Order \(name)", visitor: visitor, notice: notice, body: body)
    }

    /// The order's one email: its state, and sending it (again) for an admin.
    private var email: HTML {
        var html: HTML = "<h2>Email</h2>"
        guard mailEnabled else {
            return html + #"<p class="muted" id="email-off">Email is off: the server has no SMTP_URL.</p>"#
        }
        html += TicketPage.emailState(order.order.email, address: order.order.buyerEmail)
        if !order.activeTickets.isEmpty { html += Self.emailForm(order.order, visitor: visitor) }
        return html
    }

    /// The form that sends the order's email (again), for an admin, while it has a buyer's address.
    static func emailForm(_ order: StoredOrder, visitor: DashboardSessions.Visitor) -> HTML {
        guard visitor.canWrite, order.buyerEmail != nil else { return .empty }
        return """
            <form method="post" action="/admin/orders/\(order.id)/email">\(DashboardLayout.csrf(visitor))
            <button type="submit">\(order.email == nil ? "Send the order's email" : "Resend the order's email")</button></form>
            """
    }
}

import Foundation

/// The buyer's page of an order, at its link `/orders/{token}`: the event, when and where, and
/// every ticket of the order with its own buttons (Add to Apple Wallet, Add to Google Wallet when
/// that is on, the ticket's own page), above "Add all" buttons, one per `.pkpasses` file of the
/// order's active tickets (Wallet takes ten passes at most in one). A cancelled ticket is listed
/// as cancelled, with no button, and is in no file. English or Japanese, like the ticket page;
/// no script.
enum BuyerPage {
    /// What the page shows.
    struct Order: Sendable {
        var organizationName: String
        var eventName: String
        var venue: String
        var startsAt: Date
        var timeZone: String
        /// The organizer's id for the order, when it has one.
        var externalID: String?
        var buyerName: String?
        /// In issue order.
        var tickets: [Ticket]
        /// Where each "Add all" button downloads its file (`?format=pkpasses&part=N`), with how
        /// many passes it holds and the first ticket's number among the active ones (from 1).
        var parts: [(url: String, first: Int, count: Int)]
        /// The pass's look (the first ticket's); nil draws no band.
        var look: AttendeePage.Look? = nil
        /// The event is over: the page says so and offers no pass to add.
        var ended = false
        /// The browser is on Android: Google's button comes first.
        var android = false
    }

    struct Ticket: Sendable {
        var attendeeName: String
        var seat: String?
        var cancelled: Bool
        /// The ticket's page (its download link), its pass (`?format=pkpass`) and, with Google
        /// Wallet on, its Google link.
        var pageURL: String
        var passURL: String
        var googleWalletURL: String?
    }

    /// The page's texts in one language (with the ticket page's, `AttendeePage.Texts`).
    struct Texts: Sendable {
        let yourOrder, order, buyer, tickets, ticketsHeading, addAll, allCancelled, openTicket: String
        /// Under the Add all buttons: Apple's wallet alone, or both wallets.
        let walletHint, bothWalletsHint: String
        let addPart: @Sendable (_ first: Int, _ last: Int) -> String
        let ticketsCount: @Sendable (Int) -> String
        let forAttendee: @Sendable (String) -> String
        let notFoundTitle, notFoundText: String
    }

    static let english = Texts(
        yourOrder: "Your order", order: "Order", buyer: "Buyer", tickets: "Tickets", ticketsHeading: "Your tickets",
        addAll: "Add all to Apple Wallet", allCancelled: "Every ticket of this order has been cancelled.", openTicket: "Ticket page",
        walletHint: "On an iPhone, the tickets then update by themselves when anything changes.",
        bothWalletsHint: "In Apple Wallet or Google Wallet, the tickets then update by themselves when anything changes.",
        addPart: { "Add tickets \($0)–\($1) to Apple Wallet" }, ticketsCount: { $0 == 1 ? "1 ticket" : "\($0) tickets" },
        forAttendee: { "for \($0)" },
        notFoundTitle: "Order not found",
        notFoundText: "This link leads to no order. Look for the latest email from the organizer."
    )

    static let japanese = Texts(
        yourOrder: "ご注文", order: "注文番号", buyer: "ご購入者", tickets: "チケット", ticketsHeading: "チケット一覧",
        addAll: "すべて Apple Wallet に追加", allCancelled: "このご注文のチケットはすべてキャンセルされました。", openTicket: "チケットのページ",
        walletHint: "iPhoneでは、イベントに変更があるとチケットが自動で更新されます。",
        bothWalletsHint: "Apple Wallet でも Google ウォレットでも、イベントに変更があるとチケットが自動で更新されます。",
        addPart: { "チケット \($0)–\($1) を Apple Wallet に追加" }, ticketsCount: { "\($0)枚" },
        forAttendee: { "(\($0))" },
        notFoundTitle: "ご注文が見つかりません",
        notFoundText: "このリンクのご注文はありません。主催者からの最新のメールをご確認ください。"
    )

    static func texts(_ language: String) -> Texts { language == "ja" ? japanese : english }

    /// The whole page.
    static func render(_ order: Order, language: String) -> HTML {
        let text = texts(language)
        let ticketText = AttendeePage.texts(language)
        let active = order.tickets.filter { !$0.cancelled }.count
        var notice = HTML.empty
        if active == 0 {
            notice = "<div class=\"notice notice-bad\" role=\"status\"><p><strong>\(text.allCancelled)</strong></p></div>\n"
        } else if order.ended {
            notice = "<div class=\"notice\" role=\"status\"><p><strong>\(ticketText.endedNotice)</strong></p></div>\n"
        }
        let offered = !order.ended && active > 0
        var addAll = HTML.empty
        if offered && !order.parts.isEmpty {
            let buttons = order.parts.map { part -> HTML in
                let label = order.parts.count == 1 ? text.addAll : text.addPart(part.first, part.first + part.count - 1)
                return #"<a class="button add-all" href="\#(url: part.url)">\#(label)</a>"#
            }
            addAll = """
                <section class="order-add-all" aria-label="\(text.addAll)">
                <p class="wallet">\(HTML(joining: buttons))</p>
                <p class="muted">\(order.tickets.contains { $0.googleWalletURL != nil } ? text.bothWalletsHint : text.walletHint)</p>
                </section>

                """
        }
        let rows = order.tickets.map { ticket -> HTML in
            let seat = ticket.seat.flatMap { $0.isEmpty ? nil : $0 } ?? ticketText.generalAdmission
            var buttons: [HTML] = []
            if offered && !ticket.cancelled {
                let who = text.forAttendee(ticket.attendeeName)
                buttons.append(#"<a class="button" href="\#(url: ticket.passURL)">\#(ticketText.addToWallet)<span class="sr-only"> \#(who)</span></a>"#)
                if let google = ticket.googleWalletURL {
                    let button: HTML = #"<a class="button button-google" href="\#(url: google)">\#(ticketText.addToGoogleWallet)<span class="sr-only"> \#(who)</span></a>"#
                    if order.android { buttons.insert(button, at: 0) } else { buttons.append(button) }
                }
            }
            let link: HTML? = ticket.cancelled ? nil : #" · <a class="ticket-link" href="\#(url: ticket.pageURL)">\#(text.openTicket)<span class="sr-only"> \#(text.forAttendee(ticket.attendeeName))</span></a>"#
            let status: HTML = ticket.cancelled
                ? #"<span class="pill status-bad">\#(ticketText.cancelled)</span>"#
                : #"<span class="pill status-ok">\#(ticketText.valid)</span>"#
            return """
                <li class="order-ticket\(ticket.cancelled ? " cancelled" : "")">
                <div class="order-ticket-head"><span class="attendee">\(ticket.attendeeName)</span> \(status)</div>
                <p class="muted">\(ticketText.seat): \(seat)\(link)</p>
                \(buttons.isEmpty ? HTML.empty : "<p class=\"wallet\">\(HTML(joining: buttons))</p>")
                </li>
                """
        }
        var facts: HTML = """
            <div><dt>\(ticketText.date)</dt><dd><time datetime="\(ISODate.format(order.startsAt))">\(AttendeePage.formattedDate(order.startsAt, timeZone: order.timeZone, language: language))</time> <span class="muted">(\(order.timeZone))</span></dd></div>
            <div><dt>\(ticketText.venue)</dt><dd>\(order.venue)</dd></div>
            """
        if let name = order.buyerName { facts += "\n<div><dt>\(text.buyer)</dt><dd class=\"buyer\">\(name)</dd></div>" }
        if let id = order.externalID { facts += "\n<div><dt>\(text.order)</dt><dd class=\"order-id\">\(id)</dd></div>" }
        facts += "\n<div><dt>\(text.tickets)</dt><dd>\(text.ticketsCount(order.tickets.count))</dd></div>"
        let body: HTML = """
            <main class="ticket order">
            \(order.look?.band)<p class="muted">\(order.organizationName)</p>
            <h1>\(order.eventName)</h1>
            \(notice)<dl class="facts">
            \(facts)
            </dl>
            \(addAll)<section aria-labelledby="tickets-heading">
            <h2 id="tickets-heading">\(text.ticketsHeading)</h2>
            <ul class="order-tickets">
            \(HTML(joining: rows, separator: "\n"))
            </ul>
            </section>
            </main>
            """
        return HTML.document(title: "\(order.eventName) — \(text.yourOrder)", language: language, body: body)
    }

    /// The page for a link that leads to no order.
    static func notFound(language: String) -> HTML {
        let text = texts(language)
        return HTML.document(
            title: text.notFoundTitle, language: language,
            body: "<main class=\"ticket\">\n<h1>\(text.notFoundTitle)</h1>\n<p>\(text.notFoundText)</p>\n</main>"
        )
    }
}

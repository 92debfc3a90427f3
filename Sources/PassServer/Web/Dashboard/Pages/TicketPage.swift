import Foundation
import PassBundle
import Storage

/// The ticket page (`GET /admin/tickets/{serial}`) as a function of what it shows: the front of
/// the pass and the download link on the left; the event, the holder form, cancelling and a new
/// link on the right; the phones holding the pass and the latest pushes below. It reads
/// nothing: the controller gathers the values, the page only renders them.
struct TicketPage {
    var details: TicketDetails
    /// The ticket's event; nil for a pass issued without one.
    var event: Event?
    /// The pass as Wallet would show it (nil when it cannot be built as stored).
    var preview: PassPreview?
    /// The attendee's download link; nil for a viewer (it is the attendee's pass, barcode included).
    var downloadURL: String?
    var visitor: DashboardSessions.Visitor
    var templateFields: [TemplateField] = []
    var mailEnabled = false
    /// The holder form or the cancel form as submitted and refused.
    var holder: FormState?
    var cancelling: FormState?
    var notice: DashboardLayout.Notice?
    /// The order the ticket was issued in, with how many tickets it holds; nil for a ticket issued on its own.
    var order: (order: StoredOrder, tickets: Int)? = nil

    /// The pass definition and the localized strings its fields use.
    struct PassPreview {
        var definition: PassDefinition
        var strings: [String: String]
    }

    var ticket: Ticket { details.ticket }
    var pass: StoredPass { details.ticket.pass }

    func render() -> HTML {
        let serial = pass.serialNumber.rawValue
        let active = ticket.isActive
        var body: HTML = #"<p class="crumbs"><a href="/admin/">Events</a>"#
        if let event { body += #" › <a href="/admin/events/\#(event.id)">\#(event.name)</a>"# }
        body += """
            </p>
            <div class="page-head"><div>
            <h1>\(PassService.shownName(pass))</h1>
            <p class="subtitle">Status: <strong id="ticket-status" class="pill \(active ? "status-ok" : "status-bad")">\(active ? "active" : "cancelled")</strong>\
            \(pass.cancellationReason.map { " — reason: <span id=\"void-reason\">\($0)</span>" as HTML }) · serial <code>\(serial)</code></p>
            </div></div>
            <div class="ticket-grid"><div class="ticket-pass">
            """
        if let event { body += passPreview(event: event) }
        if let url = downloadURL {
            body += """
                <h2>Download link</h2>
                <p><a id="download-link" href="\(url: url)">\(url)</a></p>
                \(Self.qrCode(url))
                """
        }
        body += #"</div><div class="ticket-side">"#
        if let event {
            body += """
                <h2>Event</h2>
                <p>\(event.name)<br><span class="muted">\(DashboardLayout.dateText(event.startsAt, timeZone: event.timeZone)) · \(event.venue)</span></p>
                """
        }
        if let order {
            body += """
                <h2>Order</h2>
                <p id="ticket-order"><a href="/admin/orders/\(order.order.id)">Order \(OrderPage.name(order.order))</a> \
                <span class="muted">· \(DashboardLayout.count(order.tickets)) \(order.tickets == 1 ? "ticket" : "tickets")\
                \(order.order.buyerEmail.map { " · bought by \($0)" as HTML })</span></p>
                """
        }
        body += checkInSection
        if visitor.canWrite, event != nil, active {
            body += """
                <h2>Holder</h2>
                <form method="post" action="/admin/tickets/\(serial)" class="stack">\(DashboardLayout.csrf(visitor))
                \(TicketForm.inputs(templateFields, form: holder ?? FormState(values: Self.values(of: pass))))
                <p><button type="submit">Save</button></p>
                </form>
                <h2>Cancel</h2>
                <form method="post" action="/admin/tickets/\(serial)/cancel" class="stack">\(DashboardLayout.csrf(visitor))
                \(DashboardLayout.field(
                    "reason", label: "Reason (shown on the pass)", value: cancelling?.value("reason"), attributes: "maxlength=500",
                    issues: cancelling?.issues("reason") ?? []
                ))
                <p><input type="checkbox" id="f-confirm-cancel" name="confirm" value="yes" required>
                <label for="f-confirm-cancel" class="inline">Yes, cancel this ticket (it cannot be undone)</label></p>
                <p><button type="submit" class="danger">Cancel ticket</button></p>
                </form>
                """
        }
        if visitor.canWrite {
            body += """
                <h2>Replace the download link</h2>
                <form method="post" action="/admin/tickets/\(serial)/download-link" class="stack">\(DashboardLayout.csrf(visitor))
                <p><input type="checkbox" id="f-confirm-rotate" name="confirm" value="yes" required>
                <label for="f-confirm-rotate" class="inline">Yes, the current link stops working</label></p>
                <p><button type="submit" class="secondary">New download link</button></p>
                </form>
                """
        }
        body += email
        body += "</div></div>"
        body += devices
        let refusal = event.flatMap { _ in holder?.notice(shown: TicketForm.shownFields(templateFields)) } ?? cancelling?.notice(shown: ["reason"])
        return DashboardLayout.page(title: PassService.shownName(pass), visitor: visitor, notice: notice ?? refusal, body: body)
    }

    /// The values of a ticket's holder form as stored.
    static func values(of pass: StoredPass) -> [String: String] {
        var values = ["attendeeName": pass.attendeeName, "attendeeEmail": pass.attendeeEmail ?? "", "seat": pass.seat ?? ""]
        for (name, value) in pass.extra { values["extra." + name] = value.text }
        return values
    }

    /// The download link's QR code, for printed invitations.
    static func qrCode(_ url: String) -> HTML {
        guard let code = try? QRCode(url) else { return "" }
        return #"<figure class="qr" id="download-qr">\#(code.svg(label: "QR code of the download link"))<figcaption class="muted">The download link as a QR code, for printed invitations.</figcaption></figure>"#
    }

    /// The front of the pass as Wallet lays it out, drawn as SVG (colours as presentation
    /// attributes: the Content-Security-Policy allows no inline style), with every field
    /// listed as text below it.
    private func passPreview(event: Event) -> HTML {
        guard let preview, let structure = preview.definition.eventTicket else {
            return #"<p class="notice error">The pass cannot be built as it is stored.</p>"#
        }
        let definition = preview.definition
        let fieldText = PassFieldText(strings: preview.strings, timeZone: event.timeZone)
        func text(_ raw: String?) -> String { fieldText.text(raw) }
        func value(_ field: PassDefinition.Field) -> String { fieldText.value(field) }
        func clip(_ text: String, _ length: Int) -> String {
            text.count > length ? String(text.prefix(length - 1)) + "…" : text
        }
        let foreground = definition.foregroundColor ?? "rgb(0, 0, 0)"
        let background = definition.backgroundColor ?? "rgb(255, 255, 255)"
        let label = definition.labelColor ?? definition.foregroundColor ?? "rgb(0, 0, 0)"
        var svg: HTML = """
            <svg class="pass-front" viewBox="0 0 340 300" width="340" height="300" role="img" aria-labelledby="pass-title" xmlns="http://www.w3.org/2000/svg">
            <title id="pass-title">Front of the pass</title>
            <rect width="340" height="300" rx="14" fill="\(background)"/>
            <text x="16" y="30" fill="\(foreground)" font-size="15" font-weight="600">\(clip(definition.logoText ?? "", 24))</text>
            """
        for field in structure.headerFields ?? [] {
            svg += """
                <text x="324" y="18" fill="\(label)" font-size="9" text-anchor="end">\(clip(text(field.label).uppercased(), 20))</text>
                <text x="324" y="34" fill="\(foreground)" font-size="14" text-anchor="end">\(clip(value(field), 20))</text>
                """
        }
        for field in (structure.primaryFields ?? []).prefix(1) {
            svg += """
                <text x="16" y="72" fill="\(label)" font-size="10">\(clip(text(field.label).uppercased(), 40))</text>
                <text x="16" y="100" fill="\(foreground)" font-size="24">\(clip(value(field), 24))</text>
                """
        }
        for (row, fields) in [(130, structure.secondaryFields ?? []), (178, structure.auxiliaryFields ?? [])] where !fields.isEmpty {
            let shown = Array(fields.prefix(4))
            let width = 308 / shown.count
            for (index, field) in shown.enumerated() {
                let x = 16 + index * width
                let room = max(6, width / 8)
                svg += """
                    <text x="\(x)" y="\(row)" fill="\(label)" font-size="9">\(clip(text(field.label).uppercased(), room))</text>
                    <text x="\(x)" y="\(row + 17)" fill="\(foreground)" font-size="13">\(clip(value(field), room))</text>
                    """
            }
        }
        if let barcode = definition.barcodes?.first {
            svg += """
                <rect x="120" y="212" width="100" height="76" rx="6" fill="#fff"/>
                <text x="170" y="254" fill="#000" font-size="9" text-anchor="middle">\(clip(barcode.altText ?? "barcode", 18))</text>
                """
        }
        svg += "</svg>"
        let list = HTML(joining: structure.allFields.map { group, field in
            #"<div><dt>\#(text(field.label))\#(group == "backFields" ? #" <span class="muted">(back)</span>"# as HTML : "")</dt><dd>\#(value(field))</dd></div>"# as HTML
        })
        return """
            <h2>Pass</h2>
            <figure class="pass-preview">\(svg)<figcaption class="muted">What Wallet shows on the front, from the same template data the pass is built from.</figcaption></figure>
            <dl class="pass-fields" id="pass-fields">\(list)</dl>
            """
    }

    /// Whether the ticket is saved in Google Wallet, as Google's callbacks told us (while Google
    /// Wallet is on).
    private var googleWallet: HTML {
        guard details.googleWalletEnabled else { return "" }
        guard let ticket = details.googleWallet else {
            return #"<p class="muted" id="google-wallet">Google Wallet: not saved yet.</p>"#
        }
        if ticket.saved {
            let since = ticket.firstSavedAt.map { ISODate.format($0) } ?? "—"
            return #"<p id="google-wallet">Google Wallet: <span class="status-ok">saved</span> (first saved \#(since))</p>"#
        }
        return #"<p id="google-wallet">Google Wallet: <span class="status-warn">removed</span> \#(ISODate.format(ticket.lastEventAt))</p>"#
    }

    /// The phones holding the pass (each named by the hash the admin API names it by) and the
    /// latest pushes to them.
    private var devices: HTML {
        var html: HTML = "<h2>Phones</h2>"
        if details.devices.isEmpty {
            html += #"<p class="muted" id="no-devices">No phone has added this pass yet.</p>"#
        } else {
            let rows = HTML(joining: details.devices.map { device in
                """
                <tr><td><code>\((try? DeviceBody.id(of: device.deviceLibraryIdentifier)) ?? "—")</code></td><td>\(ISODate.format(device.registeredAt))</td>
                <td>\(device.toldAt.map { ISODate.format($0) } ?? "—")</td><td class="\(device.upToDate ? "status-ok" : "status-warn")">\(device.upToDate ? "up to date" : "behind")</td></tr>
                """ as HTML
            })
            html += """
                <div class="table-wrap"><table id="devices"><thead><tr><th scope="col">Phone</th><th scope="col">Added</th><th scope="col">Last asked</th><th scope="col">State</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        }
        html += googleWallet
        if !details.pushes.isEmpty {
            let rows = HTML(joining: details.pushes.map { push in
                "<tr><td>\(ISODate.format(push.createdAt))</td><td>\(push.status)</td><td>\(push.outcome ?? "")</td><td>\(push.reason ?? "")</td></tr>" as HTML
            })
            html += """
                <h3>Latest pushes</h3>
                <div class="table-wrap"><table id="pushes"><thead><tr><th scope="col">At</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Reason</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        }
        return html
    }

    /// The ticket's check-in (when, gate, scanner), the form that undoes it (admins), and the
    /// check-ins undone before, with who undid them and when.
    private var checkInSection: HTML {
        let zone = event?.timeZone ?? "UTC"
        var html: HTML = "<h2>Check-in</h2>"
        if let at = pass.checkedInAt {
            let record = ticket.checkIn
            html += """
                <p id="checkin-state">Checked in <time datetime="\(ISODate.format(at))">\(DashboardLayout.dateText(at, timeZone: zone))</time>\
                \(record?.gate.map { " · gate <span id=\"checkin-gate\">\($0)</span>" as HTML })\
                \(record?.scanner.map { " · by <span id=\"checkin-scanner\">\($0)</span>" as HTML })</p>
                """
            if visitor.canWrite {
                html += """
                    <form method="post" action="/admin/tickets/\(pass.serialNumber.rawValue)/checkin/undo" class="stack">\(DashboardLayout.csrf(visitor))
                    <p><input type="checkbox" id="f-confirm-undo" name="confirm" value="yes" required>
                    <label for="f-confirm-undo" class="inline">Yes, this ticket did not come in (it can be checked in again)</label></p>
                    <p><button type="submit" class="secondary">Undo check-in</button></p>
                    </form>
                    """
            }
        } else {
            html += #"<p id="checkin-state" class="muted">Not checked in.</p>"#
        }
        if !details.undoneCheckIns.isEmpty {
            let rows = HTML(joining: details.undoneCheckIns.map { undone in
                """
                <tr><td>\(DashboardLayout.dateText(undone.checkedInAt, timeZone: zone))</td><td>\(undone.gate ?? "")</td><td>\(undone.scanner ?? "")</td>
                <td>\(DashboardLayout.dateText(undone.undoneAt, timeZone: zone))</td><td class="undone-by">\(undone.undoneBy)</td></tr>
                """ as HTML
            })
            html += """
                <h3>Check-ins undone</h3>
                <div class="table-wrap"><table id="undone-checkins"><thead><tr><th scope="col">Checked in</th><th scope="col">Gate</th><th scope="col">Scanner</th>
                <th scope="col">Undone</th><th scope="col">By</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        }
        return html
    }

    private var email: HTML {
        var html: HTML = "<h2>Email</h2>"
        guard mailEnabled else {
            return html + #"<p class="muted" id="email-off">Email is off: the server has no SMTP_URL.</p>"#
        }
        if let order {
            html += #"<p class="muted" id="email-order">Sent with the order's one email, to its buyer.</p>"#
            html += Self.emailState(ticket.email, address: order.order.buyerEmail)
            if ticket.isActive { html += OrderPage.emailForm(order.order, visitor: visitor) }
            return html
        }
        html += Self.emailState(ticket.email, address: pass.attendeeEmail)
        if visitor.canWrite, pass.attendeeEmail != nil, ticket.isActive {
            html += """
                <form method="post" action="/admin/tickets/\(pass.serialNumber.rawValue)/email">\(DashboardLayout.csrf(visitor))
                <button type="submit">\(ticket.email == nil ? "Send email" : "Resend email")</button></form>
                """
        }
        return html
    }

    /// An email's state as the ticket and order pages show it (the state, when it was last sent,
    /// the server's reply), or what stands in for it before one was queued.
    static func emailState(_ email: (some EmailRecord)?, address: String?) -> HTML {
        guard let email else { return #"<p id="email-state">\#(address == nil ? "No email address." : "Not sent yet.")</p>"# }
        return """
            <p id="email-state">\(email.state.rawValue)\(email.sentAt.map { " · sent \(ISODate.format($0))" } ?? "")\
            \(email.reply.map { " · <span class=\"muted\">\($0)</span>" as HTML })</p>
            """
    }
}

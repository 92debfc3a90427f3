import Foundation
import HTTPServer
import PassBundle
import Storage

extension DashboardController {
    /// `GET /admin/tickets/{serial}`: the pass front, the download link, the holder's fields,
    /// cancelling, a new link, the phones holding the pass and the latest pushes, the email.
    func ticketPage(_ request: Request, _ visitor: DashboardSessions.Visitor, notice: DashboardLayout.Notice?, status: Int = 200) throws -> Response {
        let pass = try admin.existingTicket(request)
        // A viewer sees no download link: it is the attendee's pass, barcode included.
        let ticket = try admin.ticketDetails(pass, downloadURL: visitor.canWrite)
        let event = try pass.eventID.flatMap { id in try store.withSession(.read) { try $0.event(id: id) } }
        let serial = ticket.serialNumber
        let active = ticket.status == "active"
        var body: HTML = #"<p class="crumbs"><a href="/admin/">Events</a>"#
        if let event { body += #" › <a href="/admin/events/\#(event.id)">\#(event.name)</a>"# }
        body += """
            </p>
            <div class="page-head"><div>
            <h1>\(ticket.attendeeName)</h1>
            <p class="subtitle">Status: <strong id="ticket-status" class="pill \(active ? "status-ok" : "status-bad")">\(active ? "active" : "cancelled")</strong>\
            \(ticket.voidReason.map { " — reason: <span id=\"void-reason\">\($0)</span>" as HTML }) · serial <code>\(serial)</code></p>
            </div></div>
            <div class="ticket-grid"><div class="ticket-pass">
            """
        if let event { body += passPreview(pass, event: event) }
        if let url = ticket.downloadURL {
            body += """
                <h2>Download link</h2>
                <p><a id="download-link" href="\(url: url)">\(url)</a></p>
                \(qrCode(url))
                """
        }
        body += #"</div><div class="ticket-side">"#
        if let event {
            body += """
                <h2>Event</h2>
                <p>\(event.name)<br><span class="muted">\(DashboardLayout.dateText(event.startsAt, timeZone: event.timeZone)) · \(event.venue)</span></p>
                """
        }
        if visitor.canWrite, let event, active {
            var values = ["attendeeName": ticket.attendeeName, "attendeeEmail": ticket.attendeeEmail ?? "", "seat": ticket.seat ?? ""]
            for (name, value) in ticket.extra { values["extra." + name] = value.text }
            body += """
                <h2>Holder</h2>
                <form method="post" action="/admin/tickets/\(serial)" class="stack">\(DashboardLayout.csrf(visitor))
                \(ticketInputs(event, values: values))
                <p><button type="submit">Save</button></p>
                </form>
                <h2>Cancel</h2>
                <form method="post" action="/admin/tickets/\(serial)/cancel" class="stack">\(DashboardLayout.csrf(visitor))
                \(DashboardLayout.field("reason", label: "Reason (shown on the pass)", attributes: "maxlength=500"))
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
        body += email(ticket, visitor)
        body += "</div></div>"
        body += devices(ticket)
        return .html(
            DashboardLayout.page(title: ticket.attendeeName, visitor: visitor, notice: notice ?? Self.notice(request), body: body), status: status
        )
    }

    /// The download link's QR code, for printed invitations.
    func qrCode(_ url: String) -> HTML {
        guard let code = try? QRCode(url) else { return "" }
        return #"<figure class="qr" id="download-qr">\#(code.svg(label: "QR code of the download link"))<figcaption class="muted">The download link as a QR code, for printed invitations.</figcaption></figure>"#
    }

    /// The front of the pass as Wallet lays it out, drawn as SVG (colours as presentation
    /// attributes: the Content-Security-Policy allows no inline style), with every field
    /// listed as text below it.
    private func passPreview(_ pass: StoredPass, event: Event) -> HTML {
        guard let (definition, strings) = try? admin.passes.preview(pass, event: event), let structure = definition.eventTicket else {
            return #"<p class="notice error">The pass cannot be built as it is stored.</p>"#
        }
        func text(_ raw: String?) -> String { raw.map { strings[$0] ?? $0 } ?? "" }
        func value(_ field: PassDefinition.Field) -> String {
            switch field.value {
            case .number(let number): return number == number.rounded() ? String(Int64(number)) : String(number)
            case .string(let raw):
                if field.dateStyle != nil, let date = ISODate.parse(raw) { return DashboardLayout.dateText(date, timeZone: event.timeZone) }
                return text(raw).replacingOccurrences(of: "%@", with: "")
            }
        }
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

    private func devices(_ ticket: TicketBody) -> HTML {
        let devices = ticket.devices ?? []
        var html: HTML = "<h2>Phones</h2>"
        if devices.isEmpty {
            html += #"<p class="muted" id="no-devices">No phone has added this pass yet.</p>"#
        } else {
            let rows = HTML(joining: devices.map { device in
                """
                <tr><td><code>\(device.id)</code></td><td>\(device.registeredAt)</td>
                <td>\(device.toldAt ?? "—")</td><td class="\(device.upToDate ? "status-ok" : "status-warn")">\(device.upToDate ? "up to date" : "behind")</td></tr>
                """ as HTML
            })
            html += """
                <div class="table-wrap"><table id="devices"><thead><tr><th scope="col">Phone</th><th scope="col">Added</th><th scope="col">Last asked</th><th scope="col">State</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        }
        let pushes = ticket.latestPushes ?? []
        if !pushes.isEmpty {
            let rows = HTML(joining: pushes.map { push in
                "<tr><td>\(push.at)</td><td>\(push.status)</td><td>\(push.outcome ?? "")</td><td>\(push.reason ?? "")</td></tr>" as HTML
            })
            html += """
                <h3>Latest pushes</h3>
                <div class="table-wrap"><table id="pushes"><thead><tr><th scope="col">At</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Reason</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        }
        return html
    }

    private func email(_ ticket: TicketBody, _ visitor: DashboardSessions.Visitor) -> HTML {
        var html: HTML = "<h2>Email</h2>"
        guard admin.mail.isEnabled else {
            return html + #"<p class="muted" id="email-off">Email is off: the server has no SMTP_URL.</p>"#
        }
        if let status = ticket.emailStatus {
            html += """
                <p id="email-state">\(status.state)\(status.sentAt.map { " · sent \($0)" } ?? "")\
                \(status.reply.map { " · <span class=\"muted\">\($0)</span>" as HTML })</p>
                """
        } else {
            html += #"<p id="email-state">\#(ticket.attendeeEmail == nil ? "No email address." : "Not sent yet.")</p>"#
        }
        if visitor.canWrite, ticket.attendeeEmail != nil, ticket.status == "active" {
            html += """
                <form method="post" action="/admin/tickets/\(ticket.serialNumber)/email">\(DashboardLayout.csrf(visitor))
                <button type="submit">\(ticket.emailStatus == nil ? "Send email" : "Resend email")</button></form>
                """
        }
        return html
    }

    // MARK: Changes

    func updateTicket(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let pass = try admin.existingTicket(request)
        guard let event = try pass.eventID.flatMap({ id in try store.withSession(.read, { try $0.event(id: id) }) }) else { throw HTTPError.notFound("No such event.") }
        var object = ticketObject(event, form, names: ["attendeeName", "attendeeEmail", "seat"], clearing: true)
        // Only what changed: an unchanged field must not fail on a value stored before a rule tightened.
        let current: [String: JSONValue] = [
            "attendeeName": .string(pass.attendeeName), "attendeeEmail": pass.attendeeEmail.map(JSONValue.string) ?? .null,
            "seat": pass.seat.map(JSONValue.string) ?? .null,
        ]
        for (name, value) in current where object[name] == value { object[name] = nil }
        if case .object(var extra)? = object["extra"] {
            for (name, value) in extra where pass.extra[name].map({ JSONValue.string($0.text) }) == value || (pass.extra[name] == nil && value == .null) {
                extra[name] = nil
            }
            object["extra"] = extra.isEmpty ? nil : .object(extra)
        }
        var input = AdminInput(object: object, allowed: TicketInput.fields)
        do {
            _ = try admin.updateTicket(pass, &input, requestID: request.requestID)
            return Self.redirect("/admin/tickets/\(pass.serialNumber)?notice=saved")
        } catch let error as HTTPError where error.status == 400 || error.status == 409 {
            return try ticketPage(request, visitor, notice: .init(text: error.message, isError: true), status: error.status)
        }
    }

    func cancelTicket(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let pass = try admin.existingTicket(request)
        guard form["confirm"] == "yes" else {
            return try ticketPage(request, visitor, notice: .init(text: "Tick the confirmation to cancel the ticket.", isError: true), status: 400)
        }
        var object: [String: JSONValue] = [:]
        if let reason = form.nonEmpty("reason") { object["reason"] = .string(reason) }
        var input = AdminInput(object: object, allowed: ["reason"])
        do {
            _ = try admin.cancelTicket(pass, &input, requestID: request.requestID)
            return Self.redirect("/admin/tickets/\(pass.serialNumber)?notice=cancelled")
        } catch let error as HTTPError where error.status == 400 {
            return try ticketPage(request, visitor, notice: .init(text: error.message, isError: true), status: 400)
        }
    }

    func rotateLink(_ form: FormFields, _ request: Request) throws -> Response {
        let pass = try admin.existingTicket(request)
        guard form["confirm"] == "yes" else { throw HTTPError.badRequest("Tick the confirmation to replace the link.") }
        _ = try admin.rotateDownloadLink(pass, requestID: request.requestID)
        return Self.redirect("/admin/tickets/\(pass.serialNumber)?notice=rotated")
    }

    func emailTicket(_ request: Request) throws -> Response {
        let pass = try admin.existingTicket(request)
        try admin.mailing.email(pass, requestID: request.requestID)
        return Self.redirect("/admin/tickets/\(pass.serialNumber)?notice=email-queued")
    }
}

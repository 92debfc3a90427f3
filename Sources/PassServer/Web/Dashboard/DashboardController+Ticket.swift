import Foundation
import HTTPServer
import PassBundle
import Storage

extension DashboardController {
    /// `GET /admin/tickets/{serial}`: the pass front, the download link, the holder's fields,
    /// cancelling, a new link, the phones holding the pass and the latest pushes, the email.
    func ticketPage(
        _ request: Request, _ visitor: DashboardSessions.Visitor, notice: DashboardLayout.Notice?, status: Int = 200, holder form: FormState? = nil,
        cancelling: FormState? = nil
    ) throws -> Response {
        let pass = try organizer.ticket(serialNumber: request.parameters["serialNumber"])
        let details = try organizer.details(of: pass)
        let ticket = details.ticket
        let event = try organizer.event(of: pass)
        // A viewer sees no download link: it is the attendee's pass, barcode included.
        let downloadURL = visitor.canWrite ? try admin.downloadURL(for: pass) : nil
        let serial = pass.serialNumber.rawValue
        let active = ticket.isActive
        var body: HTML = #"<p class="crumbs"><a href="/admin/">Events</a>"#
        if let event { body += #" › <a href="/admin/events/\#(event.id)">\#(event.name)</a>"# }
        body += """
            </p>
            <div class="page-head"><div>
            <h1>\(pass.attendeeName)</h1>
            <p class="subtitle">Status: <strong id="ticket-status" class="pill \(active ? "status-ok" : "status-bad")">\(active ? "active" : "cancelled")</strong>\
            \(pass.cancellationReason.map { " — reason: <span id=\"void-reason\">\($0)</span>" as HTML }) · serial <code>\(serial)</code></p>
            </div></div>
            <div class="ticket-grid"><div class="ticket-pass">
            """
        if let event { body += passPreview(pass, event: event) }
        if let url = downloadURL {
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
            body += """
                <h2>Holder</h2>
                <form method="post" action="/admin/tickets/\(serial)" class="stack">\(DashboardLayout.csrf(visitor))
                \(ticketInputs(event, form: form ?? FormState(values: Self.values(of: pass))))
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
        body += email(ticket, visitor)
        body += "</div></div>"
        body += try devices(details)
        let refusal = event.flatMap { form?.notice(shown: Self.ticketFormFields($0, organizer)) } ?? cancelling?.notice(shown: ["reason"])
        return .html(
            DashboardLayout.page(title: pass.attendeeName, visitor: visitor, notice: notice ?? refusal ?? Self.notice(request), body: body),
            status: form?.status ?? cancelling?.status ?? status
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

    private func devices(_ details: TicketDetails) throws -> HTML {
        var html: HTML = "<h2>Phones</h2>"
        if details.devices.isEmpty {
            html += #"<p class="muted" id="no-devices">No phone has added this pass yet.</p>"#
        } else {
            let rows = HTML(joining: try details.devices.map { device in
                """
                <tr><td><code>\(try DeviceBody.id(of: device.deviceLibraryIdentifier))</code></td><td>\(ISODate.format(device.registeredAt))</td>
                <td>\(device.toldAt.map { ISODate.format($0) } ?? "—")</td><td class="\(device.upToDate ? "status-ok" : "status-warn")">\(device.upToDate ? "up to date" : "behind")</td></tr>
                """ as HTML
            })
            html += """
                <div class="table-wrap"><table id="devices"><thead><tr><th scope="col">Phone</th><th scope="col">Added</th><th scope="col">Last asked</th><th scope="col">State</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        }
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

    private func email(_ ticket: Ticket, _ visitor: DashboardSessions.Visitor) -> HTML {
        var html: HTML = "<h2>Email</h2>"
        guard admin.mail.isEnabled else {
            return html + #"<p class="muted" id="email-off">Email is off: the server has no SMTP_URL.</p>"#
        }
        if let status = ticket.email {
            html += """
                <p id="email-state">\(status.state.rawValue)\(status.sentAt.map { " · sent \(ISODate.format($0))" } ?? "")\
                \(status.reply.map { " · <span class=\"muted\">\($0)</span>" as HTML })</p>
                """
        } else {
            html += #"<p id="email-state">\#(ticket.pass.attendeeEmail == nil ? "No email address." : "Not sent yet.")</p>"#
        }
        if visitor.canWrite, ticket.pass.attendeeEmail != nil, ticket.isActive {
            html += """
                <form method="post" action="/admin/tickets/\(ticket.pass.serialNumber.rawValue)/email">\(DashboardLayout.csrf(visitor))
                <button type="submit">\(ticket.email == nil ? "Send email" : "Resend email")</button></form>
                """
        }
        return html
    }

    // MARK: Changes

    /// The values of a ticket's holder form as stored.
    static func values(of pass: StoredPass) -> [String: String] {
        var values = ["attendeeName": pass.attendeeName, "attendeeEmail": pass.attendeeEmail ?? "", "seat": pass.seat ?? ""]
        for (name, value) in pass.extra { values["extra." + name] = value.text }
        return values
    }

    /// A change of the ticket's holder from the form: only what differs from the ticket (an
    /// unchanged field must not fail on a value stored before a rule tightened); an emptied
    /// optional field removes its value.
    func ticketEdit(_ pass: StoredPass, event: Event, _ form: FormFields) -> TicketEdit {
        var edit = TicketEdit()
        if let name = form.nonEmpty("attendeeName"), name != pass.attendeeName { edit.attendeeName = name }
        func optional(_ field: String, _ current: String?) -> String?? {
            guard let value = form[field] else { return nil }
            if value.isEmpty { return current == nil ? nil : .some(nil) }
            return value == current ? nil : .some(value)
        }
        edit.attendeeEmail = optional("attendeeEmail", pass.attendeeEmail)
        edit.seat = optional("seat", pass.seat)
        var extra: [String: ExtraInput] = [:]
        for field in organizer.templateFields(of: event) {
            guard let value = form["extra." + field.name] else { continue }
            let current = pass.extra[field.name]?.text
            if value.isEmpty {
                if !field.required && current != nil { extra[field.name] = .null }
            } else if value != current {
                extra[field.name] = Self.extraInput(value, for: field)
            }
        }
        edit.extra = extra.isEmpty ? nil : extra
        return edit
    }

    func updateTicket(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let pass = try organizer.ticket(serialNumber: request.parameters["serialNumber"])
        guard let event = try organizer.event(of: pass) else { throw OrganizerError.notFound("No such event.") }
        do {
            _ = try organizer.updateTicket(pass, ticketEdit(pass, event: event, form), requestID: request.requestID)
            return Self.redirect("/admin/tickets/\(pass.serialNumber)?notice=saved")
        } catch let refusal as OrganizerError {
            guard let shown = FormState(form, over: Self.values(of: pass)).refused(refusal) else { throw refusal }
            return try ticketPage(request, visitor, notice: nil, holder: shown)
        }
    }

    func cancelTicket(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let pass = try organizer.ticket(serialNumber: request.parameters["serialNumber"])
        guard form["confirm"] == "yes" else {
            return try ticketPage(request, visitor, notice: .init(text: "Tick the confirmation to cancel the ticket.", isError: true), status: 400)
        }
        do {
            _ = try organizer.cancelTicket(pass, reason: form.nonEmpty("reason"), requestID: request.requestID)
            return Self.redirect("/admin/tickets/\(pass.serialNumber)?notice=cancelled")
        } catch let refusal as OrganizerError {
            guard let shown = FormState(form).refused(refusal) else { throw refusal }
            return try ticketPage(request, visitor, notice: nil, cancelling: shown)
        }
    }

    func rotateLink(_ form: FormFields, _ request: Request) throws -> Response {
        let pass = try organizer.ticket(serialNumber: request.parameters["serialNumber"])
        guard form["confirm"] == "yes" else { throw HTTPError.badRequest("Tick the confirmation to replace the link.") }
        _ = try organizer.rotateDownloadLink(pass, requestID: request.requestID)
        return Self.redirect("/admin/tickets/\(pass.serialNumber)?notice=rotated")
    }

    func emailTicket(_ request: Request) throws -> Response {
        let pass = try admin.existingTicket(request)
        try admin.mailing.email(pass, requestID: request.requestID)
        return Self.redirect("/admin/tickets/\(pass.serialNumber)?notice=email-queued")
    }
}

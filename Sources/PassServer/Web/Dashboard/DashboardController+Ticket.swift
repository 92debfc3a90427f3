import Foundation
import HTTPServer
import PassBundle
import Storage

extension DashboardController {
    /// `GET /admin/tickets/{serial}`: the ticket, its event, the pass as built from the template,
    /// the download link for an admin, rendered by `TicketPage`.
    func ticketPage(
        _ request: Request, _ visitor: DashboardSessions.Visitor, notice: DashboardLayout.Notice?, status: Int = 200, holder form: FormState? = nil,
        cancelling: FormState? = nil
    ) throws -> Response {
        let pass = try organizer.ticket(serialNumber: request.parameters["serialNumber"])
        let event = try organizer.event(of: pass)
        let order = try pass.orderID.flatMap { id in
            try store.withSession(.read) { session in try session.orders.order(id: id).map { ($0, try session.orders.passes(orderID: id).count) } }
        }
        let preview = event.flatMap { event in
            (try? admin.passes.preview(pass, event: event)).map { TicketPage.PassPreview(definition: $0.pass, strings: $0.strings) }
        }
        let page = TicketPage(
            details: try organizer.details(of: pass), event: event, preview: preview,
            // A viewer sees no download link: it is the attendee's pass, barcode included.
            downloadURL: visitor.canWrite ? try admin.downloadURL(for: pass) : nil, visitor: visitor,
            templateFields: event.map { organizer.templateFields(of: $0) } ?? [], mailEnabled: admin.mail.isEnabled, holder: form,
            cancelling: cancelling, notice: notice ?? (form == nil && cancelling == nil ? Self.notice(request) : nil), order: order
        )
        return .html(page.render(), status: form?.status ?? cancelling?.status ?? status)
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
            guard let shown = FormState(form, over: TicketPage.values(of: pass)).refused(refusal) else { throw refusal }
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

    /// Undoes the ticket's check-in (an admin's form, confirmed): logged and kept with the
    /// visitor's token name; the ticket can be checked in again.
    func undoCheckIn(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let pass = try organizer.ticket(serialNumber: request.parameters["serialNumber"])
        guard form["confirm"] == "yes" else {
            return try ticketPage(request, visitor, notice: .init(text: "Tick the confirmation to undo the check-in.", isError: true), status: 400)
        }
        _ = try admin.desk.undo(pass, by: visitor.tokenName, requestID: request.requestID)
        return Self.redirect("/admin/tickets/\(pass.serialNumber)?notice=checkin-undone")
    }

    func emailTicket(_ request: Request) throws -> Response {
        let pass = try admin.existingTicket(request)
        try admin.mailing.email(pass, requestID: request.requestID)
        return Self.redirect("/admin/tickets/\(pass.serialNumber)?notice=email-queued")
    }
}

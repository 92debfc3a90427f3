import Foundation
import HTTPServer
import PassBundle
import Storage

extension DashboardController {
    /// `GET /admin/events/{id}`: the event's counts, the job it follows and a page of its tickets
    /// (search, status filter, cursor from the query), rendered by `EventPage`.
    func eventPage(
        _ request: Request, _ visitor: DashboardSessions.Visitor, issuing form: FormState? = nil, announcing: FormState? = nil,
        refusal: OrganizerError? = nil
    ) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        let details = try organizer.details(of: event)
        let search = request.query["q"].map(AdminText.trimmed) ?? ""
        let statusFilter = ["active", "cancelled"].contains(request.query["status"] ?? "") ? request.query["status"] : nil
        let checkedInFilter = ["true", "false"].contains(request.query["checkedIn"] ?? "") ? request.query["checkedIn"] : nil
        var query = TicketQuery()
        query.limit = 50
        query.search = search.isEmpty ? nil : search
        query.status = statusFilter == "cancelled" ? .cancelled : statusFilter == "active" ? .active : nil
        query.checkedIn = checkedInFilter.map { $0 == "true" }
        if let cursor = request.query["cursor"] {
            query.cursor = cursor.utf8.count <= 18 && cursor.utf8.allSatisfy({ (0x30...0x39).contains($0) }) ? Int64(cursor) : nil
            if query.cursor == nil { query.unreadable.append(OrganizerError.Issue("cursor", "must be a cursor from a previous page")) }
        }
        let page = try organizer.tickets(of: event, query)
        let scheduling = SchedulingSections(
            event: event, announcements: try organizer.announcements(of: event), changes: try organizer.scheduledChanges(of: event), visitor: visitor,
            announcing: announcing ?? FormState()
        )
        let rendered = EventPage(
            details: details, tickets: page, search: search, status: statusFilter, checkedIn: checkedInFilter, job: try followedJob(event, request), visitor: visitor,
            templateFields: organizer.templateFields(of: event), mailEnabled: admin.mail.isEnabled, issuing: form ?? FormState(),
            notice: refusal.map { DashboardLayout.Notice(text: $0.errorMessage, isError: true) } ?? Self.notice(request), scheduling: scheduling
        )
        return .html(rendered.render(), status: refusal?.status ?? form?.status ?? announcing?.status ?? 200)
    }

    /// The job named by `?job=`, or the event's latest job while it runs.
    private func followedJob(_ event: Event, _ request: Request) throws -> JobProgress? {
        var jobID = request.query["job"]
        if jobID == nil, let latest = try store.withSession(.read, { try $0.jobs.jobs(eventID: event.id, limit: 1) }).first, latest.state == .pending || latest.state == .running {
            jobID = latest.id
        }
        guard let jobID, let progress = try? organizer.job(id: jobID), progress.job.eventID == event.id else { return nil }
        return progress
    }

    /// A value of one of the template's extra fields from a form: a number for an integer field
    /// when it is one.
    static func extraInput(_ value: String, for field: TemplateField) -> ExtraInput {
        if case .integer = field.kind, let number = Int64(value) { return .number(Double(number)) }
        return .text(value)
    }

    /// A new ticket from the form: the holder fields and `extra.` fields filled in.
    func ticketDraft(_ event: Event, _ form: FormFields) -> TicketDraft {
        var draft = TicketDraft()
        draft.attendeeName = form.nonEmpty("attendeeName")
        draft.attendeeEmail = form.nonEmpty("attendeeEmail")
        draft.seat = form.nonEmpty("seat")
        draft.externalID = form.nonEmpty("externalId")
        var extra: [String: ExtraInput] = [:]
        for field in organizer.templateFields(of: event) {
            if let value = form.nonEmpty("extra." + field.name) { extra[field.name] = Self.extraInput(value, for: field) }
        }
        draft.extra = extra.isEmpty ? nil : extra
        return draft
    }

    func issueTicket(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        do {
            let issued = try organizer.issueTicket(ticketDraft(event, form), of: event, notify: form["notify"] == "true", requestID: request.requestID)
            return Self.redirect("/admin/tickets/\(issued.ticket.pass.serialNumber)?notice=issued")
        } catch let refusal as OrganizerError {
            guard let shown = FormState(form).refused(refusal) else { throw refusal }
            return try eventPage(request, visitor, issuing: shown)
        }
    }

    /// `POST /admin/events/{id}/erase`: erases the attendees' data once the name typed matches.
    func erase(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        do {
            let update = try organizer.eraseEvent(event, confirmation: form["confirmErase"], requestID: request.requestID)
            return Self.redirect("/admin/events/\(event.id)?notice=erased").with(job: update.job?.id)
        } catch let refusal as OrganizerError where refusal.status == 409 {
            return try eventPage(request, visitor, refusal: refusal)
        }
    }

    /// `POST /admin/events/{id}/delete`: deletes the event once the name typed matches.
    func delete(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        do {
            _ = try organizer.deleteEvent(event, confirmation: form["confirmDelete"], requestID: request.requestID)
            return Self.redirect("/admin/?notice=deleted")
        } catch let refusal as OrganizerError where refusal.status == 409 {
            return try eventPage(request, visitor, refusal: refusal)
        }
    }

    func emailEvent(_ form: FormFields, _ request: Request) throws -> Response {
        let event = try admin.existingEvent(request)
        let job = try admin.mailing.email(event, resend: form["resend"] == "true", requestID: request.requestID)
        return Self.redirect("/admin/events/\(event.id)?notice=email-queued&job=\(job.id)")
    }
}

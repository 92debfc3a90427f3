import Foundation
import HTTPServer
import PassBundle
import Storage

extension DashboardController {
    /// `GET /admin/`: the events, newest first, with search and upcoming / past.
    func eventsPage(_ request: Request, _ visitor: DashboardSessions.Visitor) throws -> Response {
        let when = ["upcoming", "past", "all"].contains(request.query["when"] ?? "") ? request.query["when"] ?? "upcoming" : "upcoming"
        let search = request.query["q"].map(AdminText.trimmed) ?? ""
        // An event counts as upcoming until a day after it started.
        let boundary = admin.now().addingTimeInterval(-86_400)
        var query = EventQuery()
        query.limit = 25
        query.search = search.isEmpty ? nil : search
        if when == "upcoming" { query.startsFrom = boundary }
        if when == "past" { query.startsBefore = boundary }
        query.cursor = request.query["cursor"]
        let page = try organizer.events(query)
        return .html(EventsPage(list: page, search: search, when: when, visitor: visitor, notice: Self.notice(request)).render())
    }

    // MARK: Create and edit

    func newEventPage(_ visitor: DashboardSessions.Visitor, form: FormState, confirmingPastStart: Bool = false) throws -> Response {
        guard visitor.canWrite else { throw AdminAuthentication.forbidden(visitor.role, needs: .admin) }
        var page = EventFormPage(form: form, templateNames: organizer.templateNames, visitor: visitor)
        page.confirmingPastStart = confirmingPastStart
        return .html(page.render(), status: form.status)
    }

    func createEvent(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        do {
            let event = try organizer.createEvent(Self.eventDraft(form), requestID: request.requestID)
            return Self.redirect("/admin/events/\(event.id)?notice=created")
        } catch let refusal as OrganizerError {
            guard var shown = FormState(form).refused(refusal) else { throw refusal }
            // A start in the past is asked about, not refused: the same form once more, with the
            // question and a button that confirms it.
            let pastStart = refusal.errorCode == Organizer.startInPastCode
            if pastStart { shown.message = EventFormPage.pastStartQuestion }
            return try newEventPage(visitor, form: shown, confirmingPastStart: pastStart)
        }
    }

    /// The values of an event's form as stored.
    static func values(of event: Event) -> [String: String] {
        [
            "name": event.name, "venue": event.venue, "startsAt": DashboardLayout.localInput(event.startsAt, timeZone: event.timeZone),
            "endsAt": event.endsAt.map { DashboardLayout.localInput($0, timeZone: event.timeZone) } ?? "", "timeZone": event.timeZone,
            "template": event.template, "language": event.language,
        ]
    }

    func editEventPage(_ event: Event, _ visitor: DashboardSessions.Visitor, form: FormState? = nil) throws -> Response {
        guard visitor.canWrite else { throw AdminAuthentication.forbidden(visitor.role, needs: .admin) }
        let form = form ?? FormState(values: Self.values(of: event))
        let phones = try organizer.details(of: event).tally.devices
        let page = EventFormPage(editing: (event, phones), form: form, templateNames: organizer.templateNames, visitor: visitor)
        return .html(page.render(), status: form.status)
    }

    func updateEvent(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        do {
            // Schedule saves the change to apply at its time; Save applies it.
            if form["when"] == "schedule" {
                _ = try organizer.scheduleChange(event, Self.scheduledEditDraft(form, of: event), requestID: request.requestID)
                return Self.redirect("/admin/events/\(event.id)?notice=change-scheduled")
            }
            let update = try organizer.updateEvent(event, Self.eventEdit(form, of: event), requestID: request.requestID)
            return Self.redirect("/admin/events/\(event.id)?notice=saved").with(job: update.job?.id)
        } catch let refusal as OrganizerError {
            guard let shown = FormState(form, over: Self.values(of: event)).refused(refusal) else { throw refusal }
            return try editEventPage(event, visitor, form: shown)
        }
    }

    /// A new event from the form: every field filled in (an empty one is left out).
    static func eventDraft(_ form: FormFields) -> EventDraft {
        var draft = EventDraft()
        draft.name = form.nonEmpty("name")
        draft.venue = form.nonEmpty("venue")
        draft.template = form.nonEmpty("template")
        draft.language = form.nonEmpty("language")
        let timeZone = AdminText.trimmed(form["timeZone"] ?? "")
        draft.timeZone = timeZone.isEmpty ? nil : timeZone
        // Local times in the event's zone.
        let zone = draft.timeZone ?? "UTC"
        draft.startsAt = localDate(form, "startsAt", timeZone: zone, &draft.unreadable)
        draft.endsAt = localDate(form, "endsAt", timeZone: zone, &draft.unreadable)
        draft.confirmPastStart = form["confirmPastStart"] == "true"
        return draft
    }

    /// A change of `event` from the form: only what differs from it (so an unchanged form starts
    /// no re-push); an emptied end removes it.
    static func eventEdit(_ form: FormFields, of event: Event) -> EventEdit {
        var edit = EventEdit()
        func changed(_ name: String, _ current: String) -> String? {
            form[name].flatMap { $0 == current ? nil : $0 }
        }
        edit.name = changed("name", event.name)
        edit.venue = changed("venue", event.venue)
        edit.template = changed("template", event.template)
        edit.language = changed("language", event.language)
        let timeZone = AdminText.trimmed(form["timeZone"] ?? "")
        if !timeZone.isEmpty && timeZone != event.timeZone { edit.timeZone = timeZone }
        // A changed zone rewrites the times too (the same wall time in the new zone).
        let zone = edit.timeZone ?? event.timeZone
        let rewrite = edit.timeZone != nil
        if AdminText.trimmed(form["startsAt"] ?? "") != DashboardLayout.localInput(event.startsAt, timeZone: event.timeZone) || rewrite {
            edit.startsAt = localDate(form, "startsAt", timeZone: zone, &edit.unreadable)
        }
        let ends = AdminText.trimmed(form["endsAt"] ?? "")
        if ends.isEmpty {
            if event.endsAt != nil { edit.endsAt = .some(nil) }
        } else if ends != event.endsAt.map({ DashboardLayout.localInput($0, timeZone: event.timeZone) }) || rewrite {
            edit.endsAt = localDate(form, "endsAt", timeZone: zone, &edit.unreadable).map { .some($0) }
        }
        return edit
    }

    /// A `datetime-local` field read in `timeZone`; nil when empty, and after naming the problem
    /// when it is not a date and time.
    static func localDate(_ form: FormFields, _ name: String, timeZone: String, _ unreadable: inout [OrganizerError.Issue]) -> Date? {
        let text = AdminText.trimmed(form[name] ?? "")
        guard !text.isEmpty else { return nil }
        guard let date = DashboardLayout.date(local: text, timeZone: timeZone) else {
            unreadable.append(OrganizerError.Issue(name, "must be a date and time (YYYY-MM-DDTHH:MM)"))
            return nil
        }
        return date
    }

    func archive(_ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        let archived = form["archived"] != "false"
        _ = try organizer.setArchived(archived, event, requestID: request.requestID)
        return Self.redirect("/admin/events/\(event.id)?notice=\(archived ? "archived" : "unarchived")")
    }
}

extension Response {
    /// The redirect with `job=` added to its location, when there is a job.
    func with(job: String?) -> Response {
        guard let job, let location = headers["Location"] else { return self }
        var copy = self
        copy.headers.replace(name: "Location", value: location + "&job=" + job)
        return copy
    }
}

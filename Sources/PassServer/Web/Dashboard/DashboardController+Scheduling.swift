import Foundation
import HTTPServer
import Storage

/// The event page's announcements and scheduled changes: the forms post here, over the same
/// operations as the admin API (`Organizer+Announcements`, `Organizer+ScheduledChanges`). Times
/// are read in the event's own zone.
extension DashboardController {
    func registerScheduling(in router: inout Router) {
        router.post("/admin/events/:eventId/announcements", preflight: formPreflight()) { request in
            write(request) { visitor, form in try announce(visitor, form, request) }
        }
        router.post("/admin/events/:eventId/announcements/:announcementId/withdraw", preflight: formPreflight()) { request in
            write(request) { _, _ in try withdrawAnnouncement(request) }
        }
        router.get("/admin/events/:eventId/scheduled/:changeId", maxBodySize: Self.pageBodyLimit) { request in
            read(request) { visitor in
                let event = try organizer.event(id: request.parameters["eventId"])
                return try scheduledChangePage(event, try organizer.scheduledChange(event, id: request.parameters["changeId"]), visitor)
            }
        }
        router.post("/admin/events/:eventId/scheduled/:changeId", preflight: formPreflight()) { request in
            write(request) { visitor, form in try saveScheduledChange(visitor, form, request) }
        }
        router.post("/admin/events/:eventId/scheduled/:changeId/cancel", preflight: formPreflight()) { request in
            write(request) { _, _ in try cancelScheduledChange(request) }
        }
    }

    /// `POST /admin/events/{id}/announcements`: Send now, or Schedule at the time given.
    func announce(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        var draft = AnnouncementDraft()
        draft.message = form["message"]
        draft.notify = form["notify"] == "true"
        let scheduling = form["when"] == "schedule"
        if scheduling {
            draft.sendAt = Self.localDate(form, "sendAt", timeZone: event.timeZone, &draft.unreadable)
            if draft.sendAt == nil && draft.unreadable.isEmpty { draft.unreadable.append(.init("sendAt", "is required to schedule")) }
        }
        do {
            let item = try organizer.announce(event, draft, requestID: request.requestID)
            return Self.redirect("/admin/events/\(event.id)?notice=\(scheduling ? "announcement-scheduled" : "announced")").with(job: item.jobID)
        } catch let refusal as OrganizerError {
            guard var shown = FormState(form).refused(refusal) else { throw refusal }
            // The checkbox sends nothing when cleared: keep what was chosen.
            shown.values["notify"] = draft.notify ? "true" : "false"
            return try eventPage(request, visitor, announcing: shown)
        }
    }

    func withdrawAnnouncement(_ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        let item = try organizer.withdrawAnnouncement(event, id: request.parameters["announcementId"], requestID: request.requestID)
        let notice = item.state == .cancelled ? "announcement-cancelled" : "withdrawn"
        var job: String?
        if let withdrawn = try store.withSession(.read, { try $0.announcements.announcement(id: item.id) }) { job = withdrawn.withdrawJobID }
        return Self.redirect("/admin/events/\(event.id)?notice=\(notice)").with(job: job)
    }

    /// The edit form of a scheduled change: the event's values with the change's own, and its time.
    func scheduledChangePage(
        _ event: Event, _ change: ScheduledChange, _ visitor: DashboardSessions.Visitor, form: FormState? = nil
    ) throws -> Response {
        guard visitor.canWrite else { throw AdminAuthentication.forbidden(visitor.role, needs: .admin) }
        guard change.action.state == .pending else {
            throw OrganizerError.conflict(code: Organizer.notPendingCode, message: "This scheduled change was \(change.action.state.rawValue) already; it can no longer be changed.")
        }
        let form = form ?? FormState(values: Self.values(of: event.applying(change.payload.change)).merging(
            ["applyAt": DashboardLayout.localInput(change.action.dueAt, timeZone: event.timeZone)]
        ) { $1 })
        let phones = try organizer.details(of: event).tally.devices
        var page = EventFormPage(editing: (event, phones), form: form, templateNames: organizer.templateNames, visitor: visitor)
        page.scheduled = change
        return .html(page.render(), status: form.status)
    }

    /// `POST /admin/events/{id}/scheduled/{changeId}`: the change's new time and fields (what
    /// differs from the event as it is now); its design, if it has one, stays.
    func saveScheduledChange(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        let existing = try organizer.scheduledChange(event, id: request.parameters["changeId"])
        var draft = Self.scheduledEditDraft(form, of: event)
        draft.design = existing.payload.design
        do {
            _ = try organizer.updateScheduledChange(event, id: existing.id, draft, requestID: request.requestID)
            return Self.redirect("/admin/events/\(event.id)?notice=change-saved")
        } catch let refusal as OrganizerError where refusal.status == 400 {
            guard let shown = FormState(form).refused(refusal) else { throw refusal }
            return try scheduledChangePage(event, existing, visitor, form: shown)
        }
    }

    func cancelScheduledChange(_ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        _ = try organizer.cancelScheduledChange(event, id: request.parameters["changeId"], requestID: request.requestID)
        return Self.redirect("/admin/events/\(event.id)?notice=change-cancelled")
    }

    /// A scheduled change from the event form: its time (in the event's zone) and the edit the
    /// form makes of the event as it is now.
    static func scheduledEditDraft(_ form: FormFields, of event: Event) -> ScheduledEditDraft {
        var draft = ScheduledEditDraft()
        draft.edit = eventEdit(form, of: event)
        draft.applyAt = localDate(form, "applyAt", timeZone: event.timeZone, &draft.unreadable)
        return draft
    }
}

extension EventEditPayload {
    /// The fields it changes, as an event change (for showing the event as it will be).
    var change: EventChange {
        EventChange(
            name: edit.name, venue: edit.venue, startsAt: edit.startsAt, endsAt: edit.endsAt, timeZone: edit.timeZone, template: edit.template,
            language: edit.language
        )
    }
}

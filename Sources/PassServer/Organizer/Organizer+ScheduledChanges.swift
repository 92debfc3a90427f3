import Foundation
import PassBundle
import Storage

/// Scheduled changes: an event edit (name, venue, times, zone, template, language, a whole design)
/// saved to apply at a time. It is checked when saved, as an immediate edit of the event as it is
/// then would be, and again when applied; it stays editable and cancellable while pending. The
/// scheduler applies it as exactly that event edit (`applyScheduled`), in the transaction that
/// marks it applied; one that can no longer apply is marked failed with the reason.
extension Organizer {
    /// The refusal of a change to a scheduled action that is no longer pending.
    static let notPendingCode = "not_pending"

    /// Saves `draft` to apply at its `applyAt`.
    func scheduleChange(_ event: Event, _ draft: ScheduledEditDraft, requestID: String) throws -> ScheduledChange {
        let (applyAt, payload) = try checkedSchedule(event, draft)
        let time = now()
        let action = ScheduledAction(
            id: Crypto.randomToken(bytes: 16), eventID: event.id, kind: .eventEdit, dueAt: applyAt, payload: try ScheduledPayload.encode(payload),
            createdAt: time, updatedAt: time
        )
        try store.withSession(.write) { try $0.schedule.insertScheduledAction(action) }
        scheduling.scheduled()
        logger.info("event change scheduled", ["event.id": event.id, "scheduled.id": action.id, "request.id": requestID])
        return ScheduledChange(action: action, payload: payload)
    }

    /// Replaces a pending scheduled change's time and edit with `draft`, under the row's lock: a
    /// scheduler applying it at the same moment goes first or second, never both.
    func updateScheduledChange(_ event: Event, id: String?, _ draft: ScheduledEditDraft, requestID: String) throws -> ScheduledChange {
        let existing = try scheduledChange(event, id: id)
        let (applyAt, payload) = try checkedSchedule(event, draft)
        let text = try ScheduledPayload.encode(payload)
        let action = try store.transaction { session in
            let locked = try Self.lockedPending(session, existing.id)
            return try session.schedule.updateScheduledAction(id: locked.id, dueAt: applyAt, payload: text, now: now())
        }
        scheduling.scheduled()
        logger.info("scheduled event change edited", ["event.id": event.id, "scheduled.id": action.id, "request.id": requestID])
        return ScheduledChange(action: action, payload: payload)
    }

    /// Cancels a pending scheduled change (a cancelled one stays as it is); `conflict` once it
    /// was applied or failed.
    func cancelScheduledChange(_ event: Event, id: String?, requestID: String) throws -> ScheduledChange {
        let existing = try scheduledChange(event, id: id)
        guard existing.action.state != .cancelled else { return existing }
        let action = try store.transaction { session in
            let locked = try Self.lockedPending(session, existing.id)
            return try session.schedule.finishScheduledAction(id: locked.id, state: .cancelled, now: now())
        }
        logger.info("scheduled event change cancelled", ["event.id": event.id, "scheduled.id": action.id, "request.id": requestID])
        return ScheduledChange(action: action, payload: existing.payload)
    }

    /// The row locked, while it is pending; `conflict` naming what became of it otherwise.
    private static func lockedPending(_ session: StoreSession, _ id: String) throws -> ScheduledAction {
        guard let action = try session.schedule.lockedScheduledAction(id: id) else { throw OrganizerError.notFound("No such scheduled change.") }
        guard action.state == .pending else {
            throw OrganizerError.conflict(code: notPendingCode, message: "This scheduled change was \(action.state.rawValue) already; it can no longer be changed.")
        }
        return action
    }

    /// The event's scheduled changes: the pending ones by time, then the others, latest first.
    func scheduledChanges(of event: Event) throws -> [ScheduledChange] {
        let actions = try store.withSession(.read) { try $0.schedule.scheduledActions(eventID: event.id, kind: .eventEdit) }
        let changes = try actions.map { ScheduledChange(action: $0, payload: try ScheduledPayload.decode(EventEditPayload.self, of: $0)) }
        let pending = changes.filter { $0.action.state == .pending }
        return pending + changes.filter { $0.action.state != .pending }.sorted { $0.action.dueAt > $1.action.dueAt }
    }

    /// One scheduled change of the event; `notFound` when there is none.
    func scheduledChange(_ event: Event, id: String?) throws -> ScheduledChange {
        guard let id, AdminIdentifiers.isPlausible(id),
            let action = try store.withSession(.read, { try $0.schedule.scheduledAction(id: id) }), action.eventID == event.id, action.kind == .eventEdit
        else { throw OrganizerError.notFound("No such scheduled change.") }
        return ScheduledChange(action: action, payload: try ScheduledPayload.decode(EventEditPayload.self, of: action))
    }

    /// The time and the checked payload of a scheduled change: the edit's fields checked as an
    /// immediate edit of `event` checks them, the design as saving it would, and the pass with both
    /// must build. The edit is kept as the typed draft with the checked values.
    private func checkedSchedule(_ event: Event, _ draft: ScheduledEditDraft) throws -> (Date, EventEditPayload) {
        var check = FieldCheck(reported: draft.unreadable, fields: ["applyAt", "design"])
        let applyAt = check.required("applyAt", draft.applyAt)
        if let applyAt, applyAt <= now() { check.problem("applyAt", "must be in the future") }
        var issues = check.allIssues
        var change = EventChange()
        do { change = try checkedChange(event, draft.edit) } catch OrganizerError.invalid(let found) { issues += found }
        var design: PassDesign?
        if let given = draft.design {
            do {
                let (checked, text) = try checkedDesign(event, given)
                design = checked
                change.design = .some(text)
            } catch OrganizerError.invalid(let found) {
                issues += found.map { OrganizerError.Issue("design." + $0.field, $0.message) }
            }
        }
        if issues.isEmpty && change == EventChange() {
            issues.append(OrganizerError.Issue("edit", "changes nothing: name at least one field of the event (or a design) to change"))
        }
        guard issues.isEmpty, let applyAt else { throw OrganizerError.invalid(issues) }
        try requireBuildable { try passes.validate(event: event.applying(change)) }
        let edit = EventEdit(
            name: change.name, venue: change.venue, startsAt: change.startsAt, endsAt: change.endsAt, timeZone: change.timeZone,
            language: change.language, template: change.template
        )
        return (applyAt, EventEditPayload(edit: edit, design: design))
    }

    /// Applies a due scheduled action through the operation an immediate action uses: an
    /// announcement is sent now (`sendAnnouncement`), an event edit is that event edit (`apply`,
    /// which starts the re-push job), its fields and design checked again on the event as it is
    /// now. Runs inside the scheduler's transaction, which holds the row's lock and marks it
    /// applied with the change; what can no longer apply is an `OrganizerError` naming why.
    func applyScheduled(_ action: ScheduledAction, requestID: String) throws -> Job? {
        guard let event = try store.withSession(.read, { try $0.events.event(id: action.eventID) }), event.deletingAt == nil else {
            throw OrganizerError.conflict(code: "event_deleted", message: "The event was deleted.")
        }
        if event.archivedAt != nil {
            throw OrganizerError.conflict(code: "event_archived", message: "The event is archived.")
        }
        switch action.kind {
        case .announcement:
            let payload = try ScheduledPayload.decode(AnnouncementPayload.self, of: action)
            return try sendAnnouncement(eventID: event.id, id: action.id, payload, requestID: requestID).1
        case .eventEdit:
            let payload = try ScheduledPayload.decode(EventEditPayload.self, of: action)
            var change = try checkedChange(event, payload.edit)
            if let design = payload.design { change.design = .some(try checkedDesign(event, design).text) }
            return try apply(change, to: event, requestID: requestID).job
        }
    }
}

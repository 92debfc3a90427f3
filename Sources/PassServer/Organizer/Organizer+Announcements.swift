import Foundation
import Storage

/// Announcements: a message to every holder of an event's passes, now or at a set time.
///
/// Sending one is an event change: the event's row carries the announcement, and an announcement
/// job gives every active pass a new revision and pushes its phones, like any event edit (reach,
/// pacing by signing rate and archiving work as they do there). The pass shows it first on its
/// back, with `changeMessage` `%@` when it notifies, so Wallet puts the text on the lock screen.
/// A later announcement replaces it on the passes; withdrawing it takes it off again, silently.
/// Two that notify are at least `ANNOUNCEMENT_INTERVAL` apart per event (`AnnouncementPacing`).
extension Organizer {
    /// The refusal of a notifying announcement too soon after (or before) another one.
    static let announcementTooSoonCode = "announcement_too_soon"

    /// Sends the announcement now or, with `sendAt`, saves it to be sent then (by the scheduler,
    /// through `sendAnnouncement`). `invalid` naming every problem; `conflict` for an archived
    /// event or one too soon after another (naming when it is allowed).
    func announce(_ event: Event, _ draft: AnnouncementDraft, requestID: String) throws -> AnnouncementItem {
        var check = FieldCheck(reported: draft.unreadable, fields: AnnouncementDraft.fields)
        let raw = check.required("message", draft.message)
        let message = check.apply("message", raw, FieldRules.announcement)
        let sendAt = check.value("sendAt", draft.sendAt)
        if let sendAt, sendAt <= now() { check.problem("sendAt", "must be in the future (leave it out to send now)") }
        try check.validate()
        guard let message else { throw OrganizerError.invalid(check.allIssues) }
        try Self.requireAnnounceable(event)
        let payload = AnnouncementPayload(message: message, notify: draft.notify)
        let id = Crypto.randomToken(bytes: 16)
        if let sendAt {
            let action = try scheduleAnnouncement(event, payload, id: id, at: sendAt)
            logger.info("announcement scheduled", ["event.id": event.id, "announcement.id": id, "request.id": requestID])
            return AnnouncementItem(scheduled: action, payload: payload)
        }
        _ = try sendAnnouncement(eventID: event.id, id: id, payload, requestID: requestID)
        return try announcement(event, id: id)
    }

    /// Sends an announcement now under `id`: in one transaction, the event's row takes it (under
    /// its row lock, after the pacing check) with the announcement job, and the announcement's row
    /// is written. The pass is checked to build with it. `conflict` when the event is archived or
    /// deleted, or when another notifying announcement is too close.
    func sendAnnouncement(eventID: String, id: String, _ payload: AnnouncementPayload, requestID: String) throws -> (Announcement, Job?) {
        let time = now()
        let (announcement, job) = try store.transaction { session -> (Announcement, Job?) in
            let (event, job) = try session.events.updateEvent(id: eventID, now: time) { current in
                try Self.requireAnnounceable(current)
                if payload.notify { try requirePacing(session, current, at: time, excluding: id) }
                return EventChange(announcement: .some(EventAnnouncement(id: id, message: payload.message, notify: payload.notify)))
            }
            let announcement = Announcement(id: id, eventID: eventID, message: payload.message, notify: payload.notify, sentAt: time, jobID: job?.id)
            try session.announcements.insertAnnouncement(announcement)
            try requireBuildable { try passes.validate(event: event) }
            return (announcement, job)
        }
        scheduling.metrics.sent(notify: payload.notify)
        logger.info("announcement sent", [
            "event.id": eventID, "announcement.id": id, "job.id": job?.id ?? "", "notify": "\(payload.notify)", "request.id": requestID,
        ])
        if job != nil { jobCreated() }
        return (announcement, job)
    }

    /// Saves an announcement to be sent at `sendAt`, checked now as it will be then (pacing
    /// against what is sent and scheduled, under the event's row lock; the pass with it builds).
    private func scheduleAnnouncement(_ event: Event, _ payload: AnnouncementPayload, id: String, at sendAt: Date) throws -> ScheduledAction {
        let time = now()
        let action = try store.transaction { session -> ScheduledAction in
            guard let current = try session.events.lockedEvent(id: event.id) else { throw OrganizerError.notFound("No such event.") }
            try Self.requireAnnounceable(current)
            if payload.notify { try requirePacing(session, current, at: sendAt, excluding: id) }
            var shown = current
            shown.announcement = EventAnnouncement(id: id, message: payload.message, notify: payload.notify)
            try requireBuildable { try passes.validate(event: shown) }
            let action = ScheduledAction(
                id: id, eventID: event.id, kind: .announcement, dueAt: sendAt, payload: try ScheduledPayload.encode(payload), createdAt: time, updatedAt: time
            )
            try session.schedule.insertScheduledAction(action)
            return action
        }
        scheduling.scheduled()
        return action
    }

    /// Refuses a notifying announcement at `time` that is closer than `ANNOUNCEMENT_INTERVAL` to
    /// another notifying one of the event, sent or still scheduled, naming when it is allowed.
    /// Called under the event's row lock, so two at once cannot both pass.
    private func requirePacing(_ session: StoreSession, _ event: Event, at time: Date, excluding id: String) throws {
        let interval = scheduling.announcementInterval
        guard interval > 0 else { return }
        let sent = try session.announcements.notifyingAnnouncementTimes(eventID: event.id, since: time.addingTimeInterval(-interval))
        let scheduled = try session.schedule.scheduledActions(eventID: event.id, kind: .announcement, states: [.pending]).filter { $0.id != id }
        let pending = try scheduled.filter { try ScheduledPayload.decode(AnnouncementPayload.self, of: $0).notify }.map(\.dueAt)
        let allowed = AnnouncementPacing.allowed(at: time, others: sent + pending, interval: interval)
        guard allowed > time else { return }
        // Whole seconds, rounded up: the time shown is one at which it is allowed.
        let shown = Date(timeIntervalSince1970: allowed.timeIntervalSince1970.rounded(.up))
        let minutes = Int(interval) % 60 == 0 ? "\(Int(interval) / 60) minutes" : "\(Int(interval)) seconds"
        throw OrganizerError.conflict(
            code: Self.announcementTooSoonCode,
            message: "Announcements that alert phones go at least \(minutes) apart, and another one of this event is sent or scheduled within that time: "
                + "this one is allowed from \(ISODate.format(shown, timeZone: event.timeZone)) (\(event.timeZone))."
        )
    }

    /// An archived event's phones are not pushed, a deleted one's passes are void: neither takes
    /// announcements.
    private static func requireAnnounceable(_ event: Event) throws {
        if event.deletingAt != nil { throw OrganizerError.conflict(code: "event_deleted", message: "The event was deleted.") }
        if event.archivedAt != nil {
            throw OrganizerError.conflict(code: "event_archived", message: "The event is archived: its phones are not pushed. Unarchive it to send an announcement.")
        }
    }

    /// Withdraws an announcement: a sent one leaves the passes (if they still carry it) with a
    /// job that bumps them, silently (a field that goes away alerts nobody); a scheduled one is
    /// cancelled. Withdrawing again changes nothing.
    func withdrawAnnouncement(_ event: Event, id: String?, requestID: String) throws -> AnnouncementItem {
        guard let id, AdminIdentifiers.isPlausible(id) else { throw OrganizerError.notFound("No such announcement.") }
        let time = now()
        let scheduled = try store.transaction { session -> ScheduledAction? in
            guard let action = try session.schedule.lockedScheduledAction(id: id), action.eventID == event.id, action.kind == .announcement,
                action.state != .applied
            else { return nil }
            guard action.state == .pending else { return action }
            return try session.schedule.finishScheduledAction(id: id, state: .cancelled, now: time)
        }
        if let scheduled {
            logger.info("scheduled announcement cancelled", ["event.id": event.id, "announcement.id": id, "request.id": requestID])
            return AnnouncementItem(scheduled: scheduled, payload: try ScheduledPayload.decode(AnnouncementPayload.self, of: scheduled))
        }
        let job = try store.transaction { session -> Job? in
            guard let announcement = try session.announcements.lockedAnnouncement(id: id), announcement.eventID == event.id else {
                throw OrganizerError.notFound("No such announcement.")
            }
            guard announcement.withdrawnAt == nil else { return nil }
            let (_, job) = try session.events.updateEvent(id: event.id, now: time) { current in
                current.announcement?.id == id ? EventChange(announcement: .some(nil)) : EventChange()
            }
            _ = try session.announcements.markWithdrawn(announcementID: id, jobID: job?.id, now: time)
            return job
        }
        logger.info("announcement withdrawn", ["event.id": event.id, "announcement.id": id, "job.id": job?.id ?? "", "request.id": requestID])
        if job != nil { jobCreated() }
        return try announcement(event, id: id)
    }

    /// The event's announcements, sent and scheduled, latest first, each sent one with its reach;
    /// read in a fixed number of statements.
    func announcements(of event: Event) throws -> [AnnouncementItem] {
        let (current, sent, scheduled, jobs, tally) = try store.withSession(.read) { session in
            let sent = try session.announcements.announcements(eventID: event.id)
            let jobs = try session.jobs.jobs(ids: sent.compactMap(\.jobID))
            return (
                try session.events.event(id: event.id)?.announcement, sent,
                try session.schedule.scheduledActions(eventID: event.id, kind: .announcement, states: [.pending, .failed, .cancelled]),
                jobs, jobs.isEmpty ? nil : try session.reach.eventTally(eventID: event.id)
            )
        }
        var items = try scheduled.map { AnnouncementItem(scheduled: $0, payload: try ScheduledPayload.decode(AnnouncementPayload.self, of: $0)) }
        items += sent.map { AnnouncementItem($0, current: current, job: $0.jobID.flatMap { jobs[$0] }, tally: tally) }
        return items.sorted { ($0.sendAt, $1.id) > ($1.sendAt, $0.id) }
    }

    /// One announcement of the event, sent or scheduled; `notFound` when there is none.
    func announcement(_ event: Event, id: String?) throws -> AnnouncementItem {
        guard let id, AdminIdentifiers.isPlausible(id) else { throw OrganizerError.notFound("No such announcement.") }
        let item = try store.withSession(.read) { session -> AnnouncementItem? in
            if let sent = try session.announcements.announcement(id: id), sent.eventID == event.id {
                let job = try sent.jobID.flatMap { try session.jobs.job(id: $0) }
                return AnnouncementItem(
                    sent, current: try session.events.event(id: event.id)?.announcement, job: job, tally: job == nil ? nil : try session.reach.eventTally(eventID: event.id)
                )
            }
            guard let action = try session.schedule.scheduledAction(id: id), action.eventID == event.id, action.kind == .announcement else { return nil }
            return AnnouncementItem(scheduled: action, payload: try ScheduledPayload.decode(AnnouncementPayload.self, of: action))
        }
        guard let item else { throw OrganizerError.notFound("No such announcement.") }
        return item
    }
}

import Foundation
import Storage

// Deleting an event and erasing its attendees' data: both are confirmed by typing the event's
// name, so a wrong id pasted into a script or a slip on the dashboard cannot destroy an event.
extension Organizer {
    /// The reason a deleted event's passes show.
    static let deletedReason = "This event was cancelled."

    /// Deletes the event: its tickets are voided and pushed at once (a re-push job through the
    /// outbox), the event disappears from every organizer's list and page, and the retention sweep
    /// removes its rows once every registered phone fetched the voided pass (or after
    /// `DELETED_EVENT_GRACE`). `confirmation` must be the event's name.
    func deleteEvent(_ existing: Event, confirmation: String?, requestID: String) throws -> Job {
        try confirm(confirmation, existing)
        let (event, job) = try store.withSession(.write) { session in
            do {
                return try session.erasure.markEventDeleting(id: existing.id, reason: Self.deletedReason, now: now())
            } catch let error as StorageError where error.code == .notFound {
                throw OrganizerError.notFound("No such event.")
            }
        }
        logger.notice("event deleted; tickets voided", ["event.id": event.id, "job.id": job.id, "request.id": requestID])
        jobCreated()
        return job
    }

    /// Erases the names, emails, seats, external ids and extra fields of every ticket of the
    /// event (counts and check-in times stay), then re-pushes its passes so phones fetch them
    /// without. `confirmation` must be the event's name.
    func eraseEvent(_ existing: Event, confirmation: String?, requestID: String) throws -> EventUpdate {
        try confirm(confirmation, existing)
        let (event, job) = try store.withSession(.write) { session in
            do {
                return try session.erasure.eraseAttendees(eventID: existing.id, now: now())
            } catch let error as StorageError where error.code == .notFound {
                throw OrganizerError.notFound("No such event.")
            }
        }
        try store.withSession(.write) { try $0.erasure.compactErasedData() }
        logger.notice("attendee data erased", ["event.id": event.id, "job.id": job.id, "request.id": requestID])
        jobCreated()
        return EventUpdate(event: event, job: job)
    }

    /// Refuses (`confirmation_mismatch`) unless `confirmation` is the event's name (surrounding
    /// spaces aside).
    private func confirm(_ confirmation: String?, _ event: Event) throws {
        let typed = confirmation.map(AdminText.trimmed) ?? ""
        guard typed == AdminText.trimmed(event.name) else {
            throw OrganizerError.conflict(
                code: "confirmation_mismatch", message: "confirm: type the event's name exactly (\(event.name)) to confirm."
            )
        }
    }

    /// Refuses (`event_erased`) new tickets for an event whose attendees' data was erased.
    func requireNotErased(_ event: Event) throws {
        guard event.erasedAt == nil else {
            throw OrganizerError.conflict(code: "event_erased", message: "The attendees' data of this event was erased; it takes no new tickets.")
        }
    }
}

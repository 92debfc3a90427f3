public import Foundation

// Deleting events and erasing attendees' data (migration 18).
//
// Deleting is two steps. `markEventDeleting` voids the event's tickets and starts a re-push job
// (the void reaches phones through the outbox like any change); the event is gone from every
// organizer's list and page from then on. `removeDeletedEvent`, run by the retention sweep once
// phones had their chance (`deletedEventsToRemove`), removes the rows in batches.
//
// Erasing (`eraseAttendees`) keeps every row and count and blanks what names a person: the
// attendee's name, email, seat, external id and extra fields, the search text built from them,
// cancellation reasons (the organizer's words, which may name the attendee), the mail server's
// replies (which may quote the address), emails still waiting to go out, and the webhook events of
// its tickets (which keep the tickets as they were) with their deliveries; of orders, the buyer's
// email and name, the mail server's reply and the organizer's id for the order.
//
// Lock order, as the other writers take them (so that on PostgreSQL none of these waits for one of
// them in a cycle): the event, its jobs, its passes in id order, push outbox rows (by push token and
// pass type), mail outbox rows (by pass id), orders (by id), ticket email states (by pass id), then
// registrations (by primary key); a deleted pass's mail outbox row, email state and check-in go
// with it (the foreign keys' cascade), which no writer locks registrations after. An event's
// orders go after its last passes. SQLite has one writer and no such waits.
extension ErasureOperations {
    /// Locks the event's passes in id order until the end of the transaction (PostgreSQL; a no-op
    /// statement on SQLite, whose writer lock covers them), `limit` of them at most; returns their ids.
    private func lockPasses(eventID: String, limit: Int? = nil) throws -> [Int64] {
        let bound: SQLQuery = limit.map { " LIMIT \($0)" } ?? ""
        return try execute("""
            SELECT id FROM passes WHERE event_id = \(eventID) ORDER BY id\(bound)\(unsafeRaw: forUpdate)
            """).map { try $0.int64("id") }
    }

    /// Marks the event deleting: `deleting_at` set, unarchived (so the void reaches phones), its
    /// active tickets voided with `reason`, and a re-push job created that gives each of them a new
    /// revision and pushes it. One transaction. `.notFound` when there is no such event or it is
    /// already deleting.
    public func markEventDeleting(id: String, reason: String, now: Date) throws -> (event: Event, job: Job) {
        try transaction {
            guard let row = try first("""
                UPDATE events SET deleting_at = \(now.storageMillis), archived_at = NULL, updated_at = \(now.storageMillis)
                WHERE id = \(id) AND deleting_at IS NULL
                RETURNING \(EventOperations.eventColumns)
                """)
            else { throw StorageError(.notFound, "no such event") }
            _ = try lockPasses(eventID: id)
            try execute("""
                UPDATE passes SET status = 'voided', void_reason = \(reason) WHERE event_id = \(id) AND status = 'active'
                """)
            // Google shows the voided tickets as inactive, telling their holders (within its limits).
            try session.google.enqueueGoogleObjects(where: "p.event_id = \(id)", notify: true, now: now)
            // One webhook for the event, none per voided ticket.
            try session.webhooks.enqueueEventWebhook(.eventDeleted, eventID: id, now: now)
            let job = try session.jobs.createJob(kind: Job.repushKind, eventID: id, now: now)
            return (try Event(row: row), job)
        }
    }

    /// Erases the attendees' data of every ticket of the event and marks it erased; a re-push job
    /// gives each ticket a new revision so phones fetch the pass without it. Counts (tickets,
    /// cancellations, check-ins and their times, registrations, email states) stay; emails still
    /// queued for these tickets and their orders are dropped and counted as failed; the orders
    /// keep their tickets, their key and their page's token, and lose their buyer. One transaction. `.notFound`
    /// when there is no such event (or it is deleting).
    public func eraseAttendees(eventID: String, now: Date) throws -> (event: Event, job: Job) {
        try transaction {
            guard let row = try first("""
                UPDATE events SET erased_at = COALESCE(erased_at, \(now.storageMillis)), updated_at = \(now.storageMillis)
                WHERE id = \(eventID) AND deleting_at IS NULL
                RETURNING \(EventOperations.eventColumns)
                """)
            else { throw StorageError(.notFound, "no such event") }
            _ = try lockPasses(eventID: eventID)
            let passes: SQLQuery = "SELECT id FROM passes WHERE event_id = \(eventID)"
            try execute("""
                DELETE FROM mail_outbox WHERE pass_id IN (
                    SELECT pass_id FROM mail_outbox WHERE pass_id IN (\(passes)) ORDER BY pass_id\(unsafeRaw: forUpdate))
                """)
            try execute("SELECT id FROM orders WHERE event_id = \(eventID) ORDER BY id\(unsafeRaw: forUpdate)")
            try execute("""
                UPDATE orders SET buyer_email = NULL, buyer_name = NULL, external_id = NULL, email_reply = NULL,
                    email_state = CASE WHEN email_state = 'queued' THEN 'failed' ELSE email_state END,
                    email_failed_at = CASE WHEN email_state = 'queued' THEN \(now.storageMillis) ELSE email_failed_at END
                WHERE event_id = \(eventID)
                """)
            try execute("SELECT pass_id FROM ticket_emails WHERE pass_id IN (\(passes)) ORDER BY pass_id\(unsafeRaw: forUpdate)")
            try execute("""
                UPDATE ticket_emails SET reply = NULL,
                    state = CASE WHEN state = 'queued' THEN 'failed' ELSE state END,
                    failed_at = CASE WHEN state = 'queued' THEN \(now.storageMillis) ELSE failed_at END,
                    updated_at = \(now.storageMillis)
                WHERE pass_id IN (\(passes))
                """)
            // The ticket type kept on each check-in is one of the extra fields.
            try execute("UPDATE checkins SET ticket_type = NULL WHERE event_id = \(eventID) AND ticket_type IS NOT NULL")
            try execute("""
                UPDATE passes SET attendee_name = '', attendee_email = NULL, seat = NULL, external_id = NULL, extra = NULL,
                    search_text = lower(serial_number), void_reason = NULL
                WHERE event_id = \(eventID)
                """)
            // Webhook events keep their tickets as they were: they go, with their deliveries (sent
            // or waiting), the deliveries locked first in id order as the webhook dispatcher locks them.
            let ticketWebhooks: SQLQuery = "SELECT id FROM webhook_events WHERE event_id = \(eventID) AND pass_id IS NOT NULL"
            try execute("""
                SELECT id FROM webhook_deliveries WHERE webhook_event_id IN (\(ticketWebhooks)) ORDER BY id\(unsafeRaw: forUpdate)
                """)
            try execute("DELETE FROM webhook_events WHERE id IN (\(ticketWebhooks))")
            // Google holds the holders' names and seats too: their objects are written again without them.
            try session.google.enqueueGoogleObjects(where: "p.event_id = \(eventID)", notify: false, now: now)
            let job = try session.jobs.createJob(kind: Job.repushKind, eventID: eventID, now: now)
            return (try Event(row: row), job)
        }
    }

    /// What is left of erased data in the database's files after `eraseAttendees`, removed: on
    /// SQLite the full-text index's segments are merged (a deleted entry otherwise stays in the
    /// segment that held it) and the write-ahead log is checkpointed and truncated (it holds the
    /// pages as they were before). Run outside a transaction; a checkpoint that readers hold back
    /// is finished by a later one. PostgreSQL keeps old row versions until vacuum reclaims them,
    /// which no dump or query shows.
    public func compactErasedData() throws {
        guard dialect == .sqlite else { return }
        try execute("INSERT INTO passes_search (passes_search) VALUES ('optimize')")
        try executeScript("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Up to `limit` events that ended before `cutoff` (an event without an end counts from its
    /// start) and are neither erased nor deleting, oldest first.
    public func eventsToErase(endedBefore cutoff: Date, limit: Int) throws -> [String] {
        try execute("""
            SELECT id FROM events
            WHERE erased_at IS NULL AND deleting_at IS NULL AND COALESCE(ends_at, starts_at) < \(cutoff.storageMillis)
            ORDER BY COALESCE(ends_at, starts_at), id LIMIT \(limit)
            """).map { try $0.string("id") }
    }

    /// Up to `limit` deleting events whose rows may go: deleted before `cutoff`, or every phone
    /// registered for one of their passes was told and served the pass's current revision (the
    /// voided pass) and no re-push job of theirs is still running.
    public func deletedEventsToRemove(deletedBefore cutoff: Date, limit: Int) throws -> [String] {
        try execute("""
            SELECT id FROM events e
            WHERE deleting_at IS NOT NULL AND (deleting_at < \(cutoff.storageMillis) OR (
                NOT EXISTS (SELECT 1 FROM jobs j WHERE j.event_id = e.id AND j.state IN ('pending', 'running'))
                AND NOT EXISTS (SELECT 1 FROM registrations r WHERE r.event_id = e.id
                    AND NOT (COALESCE(r.told_revision, -1) >= r.pass_revision AND COALESCE(r.served_revision, -1) >= r.pass_revision))))
            ORDER BY deleting_at, id LIMIT \(limit)
            """).map { try $0.string("id") }
    }

    /// Removes up to `limit` tickets of a deleting event (with their registrations, check-ins,
    /// email states and prunes) and the devices left without a registration, in one transaction;
    /// when none is left, the event itself with its orders, jobs and tallies, and its pushes still waiting
    /// are kept for their phones but no longer counted for it. Returns how many tickets went and
    /// whether the event did.
    public func removeDeletedEvent(id: String, limit: Int) throws -> DeletedEventRemoval {
        try transaction {
            guard try first("SELECT id FROM events WHERE id = \(id) AND deleting_at IS NOT NULL\(unsafeRaw: forUpdate)") != nil else {
                return DeletedEventRemoval(passes: 0, devices: 0, eventRemoved: false)
            }
            try execute("SELECT id FROM jobs WHERE event_id = \(id) ORDER BY id\(unsafeRaw: forUpdate)")
            let ids = try lockPasses(eventID: id, limit: limit)
            let last = ids.count < limit
            if last {
                // Pushes still waiting for its phones stay (they may carry other passes' changes).
                try execute("""
                    UPDATE push_outbox SET event_id = NULL, job_id = NULL WHERE id IN (
                        SELECT id FROM push_outbox WHERE event_id = \(id)
                        ORDER BY push_token\(unsafeRaw: bytewise), pass_type_identifier\(unsafeRaw: bytewise)\(unsafeRaw: forUpdate))
                    """)
            }
            var removedDevices = 0
            if let first = ids.first, let final = ids.last {
                let batch: SQLQuery = "event_id = \(id) AND pass_id >= \(first) AND pass_id <= \(final)"
                try execute("""
                    SELECT device_library_identifier FROM registrations WHERE \(batch)
                    ORDER BY device_library_identifier, pass_type_identifier, serial_number\(unsafeRaw: forUpdate)
                    """)
                let devices = try execute("DELETE FROM registrations WHERE \(batch) RETURNING device_library_identifier")
                    .map { try $0.string("device_library_identifier") }
                removedDevices = try session.retention.deleteDevicesWithoutRegistrations(devices)
                try execute("DELETE FROM passes WHERE event_id = \(id) AND id >= \(first) AND id <= \(final)")
            }
            guard last else { return DeletedEventRemoval(passes: ids.count, devices: removedDevices, eventRemoved: false) }
            try execute("DELETE FROM orders WHERE event_id = \(id)")
            try execute("DELETE FROM jobs WHERE event_id = \(id)")
            try execute("DELETE FROM event_devices WHERE event_id = \(id)")
            try execute("DELETE FROM event_tally_changes WHERE event_id = \(id)")
            try execute("DELETE FROM event_tallies WHERE event_id = \(id)")
            try execute("DELETE FROM events WHERE id = \(id)")
            return DeletedEventRemoval(passes: ids.count, devices: removedDevices, eventRemoved: true)
        }
    }
}

/// What one `removeDeletedEvent(id:limit:)` call removed.
public struct DeletedEventRemoval: Sendable, Equatable {
    public var passes: Int
    /// Devices left without any registration, forgotten with them.
    public var devices: Int
    /// The event itself went (no ticket of it was left).
    public var eventRemoved: Bool
}

public import Foundation

// Retention: each operation deletes at most `limit` rows in one short statement (or one short
// transaction), so a sweep of a large table never holds locks for long; the caller repeats until a
// call removes fewer than `limit`. Every timestamp comparison is strict: a row exactly as old as
// the cutoff stays.
extension RetentionOperations {
    /// Deletes up to `limit` push log entries created before `cutoff`; returns how many.
    public func deletePushLog(before cutoff: Date, limit: Int) throws -> Int {
        try execute("""
            DELETE FROM push_log WHERE id IN (
                SELECT id FROM push_log WHERE created_at < \(cutoff.storageMillis) ORDER BY created_at LIMIT \(limit))
            RETURNING id
            """).count
    }

    /// Deletes up to `limit` failed push outbox rows that failed before `cutoff`; returns how many.
    public func deleteFailedOutbox(before cutoff: Date, limit: Int) throws -> Int {
        try deleteFailedRows(of: "push_outbox", before: cutoff, limit: limit)
    }

    /// Deletes up to `limit` failed mail outbox rows that failed before `cutoff`; returns how many.
    /// The ticket's email status (`ticket_emails`) keeps the failure and the server's reply.
    public func deleteFailedMailOutbox(before cutoff: Date, limit: Int) throws -> Int {
        try deleteFailedRows(of: "mail_outbox", before: cutoff, limit: limit)
    }

    /// Deletes up to `limit` failed Google Wallet outbox rows that failed before `cutoff`; returns
    /// how many. What Google holds of each ticket (`google_objects`) keeps the refusal's reason.
    public func deleteFailedGoogleOutbox(before cutoff: Date, limit: Int) throws -> Int {
        try deleteFailedRows(of: "google_outbox", before: cutoff, limit: limit)
    }

    /// Deletes up to `limit` rows of an outbox table (`push_outbox`, `mail_outbox`, `google_outbox`) in state
    /// `failed` whose `next_attempt_at` (the failure time) is before `cutoff`.
    ///
    /// The outer condition repeats the state: a row that a new change re-armed as pending between
    /// the subquery and the delete is re-checked by PostgreSQL against its new version and kept.
    private func deleteFailedRows(of table: String, before cutoff: Date, limit: Int) throws -> Int {
        let millis = cutoff.storageMillis
        return try execute("""
            DELETE FROM \(unsafeRaw: table) WHERE id IN (
                SELECT id FROM \(unsafeRaw: table) WHERE state = 'failed' AND next_attempt_at < \(millis)
                ORDER BY next_attempt_at LIMIT \(limit))
              AND state = 'failed' AND next_attempt_at < \(millis)
            RETURNING id
            """).count
    }

    /// Deletes up to `limit` finished (done or failed) jobs that finished before `cutoff`.
    public func deleteFinishedJobs(before cutoff: Date, limit: Int) throws -> Int {
        try execute("""
            DELETE FROM jobs WHERE id IN (
                SELECT id FROM jobs WHERE finished_at < \(cutoff.storageMillis) AND state IN ('done', 'failed')
                ORDER BY finished_at LIMIT \(limit))
            RETURNING id
            """).count
    }

    /// Deletes up to `limit` registrations for passes of events that ended before `cutoff` (an
    /// event without an end counts from its start), and the devices left with no registration.
    /// One transaction.
    public func deleteRegistrations(ofEventsEndedBefore cutoff: Date, limit: Int) throws -> RegistrationsRemoved {
        try transaction {
            let devices = try execute("""
                DELETE FROM registrations WHERE (device_library_identifier, pass_type_identifier, serial_number) IN (
                    SELECT r.device_library_identifier, r.pass_type_identifier, r.serial_number FROM events e
                    JOIN passes p ON p.event_id = e.id
                    JOIN registrations r ON r.pass_type_identifier = p.pass_type_identifier AND r.serial_number = p.serial_number
                    WHERE COALESCE(e.ends_at, e.starts_at) < \(cutoff.storageMillis)
                    LIMIT \(limit))
                RETURNING device_library_identifier
                """).map { try $0.string("device_library_identifier") }
            return RegistrationsRemoved(registrations: devices.count, devices: try deleteDevicesWithoutRegistrations(devices))
        }
    }

    /// Deletes those of `devices` (device library identifiers, repeats allowed) left without any
    /// registration; returns how many. Fixed-size chunks (the last one padded with a repeat) keep
    /// this to one statement text.
    func deleteDevicesWithoutRegistrations(_ devices: [String]) throws -> Int {
        let distinct = Array(Set(devices)).sorted()
        let chunkSize = 50
        var removed = 0
        for start in stride(from: 0, to: distinct.count, by: chunkSize) {
            var chunk = Array(distinct[start..<min(start + chunkSize, distinct.count)])
            chunk += Array(repeating: chunk[chunk.count - 1], count: chunkSize - chunk.count)
            let list = SQLQuery.joined(chunk.map { "\($0)" }, separator: ", ")
            removed += try execute("""
                DELETE FROM devices WHERE device_library_identifier IN (\(list))
                  AND NOT EXISTS (SELECT 1 FROM registrations r WHERE r.device_library_identifier = devices.device_library_identifier)
                RETURNING device_library_identifier
                """).count
        }
        return removed
    }
}

/// What one `deleteRegistrations(ofEventsEndedBefore:limit:)` call removed.
public struct RegistrationsRemoved: Sendable, Equatable {
    public var registrations: Int
    /// Devices left without any registration, forgotten with them.
    public var devices: Int
}

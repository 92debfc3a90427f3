public import Foundation
import PassIdentifiers

extension OutboxOperations {
    /// Claims up to `limit` due rows for `lease`: each gets `claimed_until = now + lease` and is
    /// not handed out again until then. A dispatcher that crashes leaves its rows to expire and be
    /// claimed again (at-least-once delivery). PostgreSQL claimers never block each other
    /// (`FOR UPDATE SKIP LOCKED`); SQLite claims on its single writer.
    ///
    /// Only rows of `service` are claimed: each push service has its own dispatcher.
    public func claimOutbox(limit: Int, now: Date, lease: Duration, service: PushService = .apns) throws -> [OutboxRow] {
        try claimDue(in: .pushes, only: "push_service = \(service)", returning: OutboxRow.columns, limit: limit, now: now, lease: lease)
            .map(OutboxRow.init(row:)).sorted { $0.id < $1.id }
    }

    /// Counts of outbox rows by state, in one query.
    public func outboxCounts(now: Date) throws -> OutboxCounts {
        let millis = now.storageMillis
        guard let row = try first("""
            SELECT
                COALESCE(SUM(CASE WHEN state = 'pending' THEN 1 ELSE 0 END), 0) AS pending,
                COALESCE(SUM(CASE WHEN state = 'pending' AND claimed_until > \(millis) THEN 1 ELSE 0 END), 0) AS in_flight,
                COALESCE(SUM(CASE WHEN state = 'failed' THEN 1 ELSE 0 END), 0) AS failed
            FROM push_outbox
            """)
        else { return OutboxCounts(pending: 0, inFlight: 0, failed: 0) }
        return OutboxCounts(pending: try row.int("pending"), inFlight: try row.int("in_flight"), failed: try row.int("failed"))
    }

    /// Whether any push waits to be sent (due or backing off). One indexed lookup.
    public func hasPendingPushes() throws -> Bool {
        try first("SELECT 1 AS one FROM push_outbox WHERE state = 'pending' LIMIT 1") != nil
    }

    /// Whether any email waits to be sent (due or backing off). One indexed lookup.
    public func hasPendingEmails() throws -> Bool {
        try first("SELECT 1 AS one FROM mail_outbox WHERE state = 'pending' LIMIT 1") != nil
    }

    /// The newest push outcomes for the given token hashes (a pass's devices), newest first.
    public func latestPushes(tokenHashes: [String], limit: Int) throws -> [PushLogEntry] {
        guard !tokenHashes.isEmpty else { return [] }
        let list = SQLQuery.joined(tokenHashes.map { "\($0)" }, separator: ", ")
        return try execute("""
            SELECT token_hash, pass_type_identifier, status, reason, apns_id, latency_ms, created_at, outcome FROM push_log
            WHERE token_hash IN (\(list)) ORDER BY id DESC LIMIT \(limit)
            """).map { row in
            PushLogEntry(
                tokenHash: try row.string("token_hash"), passTypeIdentifier: PassTypeIdentifier(trusted: try row.string("pass_type_identifier")),
                status: try row.int("status"), reason: try row.optionalString("reason"), apnsID: try row.optionalString("apns_id"),
                latencyMilliseconds: try row.int64("latency_ms"), createdAt: try row.date("created_at"),
                outcome: try row.optionalString("outcome")
            )
        }
    }
}

public import Foundation

// What Google Wallet's save and delete callbacks told us (migration 20 explains the tables).
extension GoogleWalletOperations {
    /// Takes one verified callback for the pass (of `eventID`): a nonce seen before changes
    /// nothing (`.replayed`); otherwise the ticket is saved in Google Wallet now (`saved`) or not,
    /// and the event's count follows. One transaction; on PostgreSQL the pass row is locked first,
    /// so two callbacks of one ticket take turns.
    public func recordGoogleWalletCallback(passID: Int64, eventID: String, nonce: String, saved: Bool, now: Date) throws -> GoogleWalletCallbackResult {
        try transaction {
            let millis = now.storageMillis
            let fresh = try execute("""
                INSERT INTO google_wallet_nonces (nonce, received_at) VALUES (\(nonce), \(millis))
                ON CONFLICT (nonce) DO NOTHING RETURNING nonce
                """)
            guard !fresh.isEmpty else { return .replayed }
            try execute("SELECT id FROM passes WHERE id = \(passID)\(unsafeRaw: dialect.pick(postgres: " FOR NO KEY UPDATE", sqlite: ""))")
            let before = try first("SELECT saved FROM google_wallet_tickets WHERE pass_id = \(passID)").map { try $0.int("saved") == 1 }
            try execute("""
                INSERT INTO google_wallet_tickets (pass_id, event_id, saved, first_saved_at, last_event_at)
                VALUES (\(passID), \(eventID), \(saved), \(saved ? millis : nil), \(millis))
                ON CONFLICT (pass_id) DO UPDATE SET saved = excluded.saved, last_event_at = excluded.last_event_at,
                    first_saved_at = COALESCE(google_wallet_tickets.first_saved_at, excluded.first_saved_at)
                """)
            let change: Int64 = (saved ? 1 : 0) - (before == true ? 1 : 0)
            if change != 0 {
                try session.webhooks.enqueueTicketWebhooks(saved ? .googleWalletSaved : .googleWalletRemoved, where: "p.id = \(passID)", now: now)
                try execute("""
                    INSERT INTO google_wallet_events (event_id, saved) VALUES (\(eventID), \(max(change, 0)))
                    ON CONFLICT (event_id) DO UPDATE SET saved = google_wallet_events.saved + \(change)
                    """)
            }
            return .recorded(changed: change != 0)
        }
    }

    /// What Google Wallet told us of one ticket; nil before any callback of it.
    public func googleWalletTicket(passID: Int64) throws -> GoogleWalletTicket? {
        try first("SELECT saved, first_saved_at, last_event_at FROM google_wallet_tickets WHERE pass_id = \(passID)").map { row in
            GoogleWalletTicket(
                saved: try row.int("saved") == 1, firstSavedAt: try row.optionalDate("first_saved_at"),
                lastEventAt: Date(storageMillis: try row.int64("last_event_at"))
            )
        }
    }

    /// How many of the event's tickets are saved in Google Wallet now.
    public func googleWalletSaved(eventID: String) throws -> Int64 {
        try first("SELECT saved FROM google_wallet_events WHERE event_id = \(eventID)").map { try $0.int64("saved") } ?? 0
    }

    /// Tickets saved in Google Wallet now, over every event.
    public func googleWalletSavedTotal() throws -> Int64 {
        try first("SELECT CAST(COALESCE(sum(saved), 0) AS BIGINT) AS saved FROM google_wallet_events").map { try $0.int64("saved") } ?? 0
    }

    /// Deletes up to `limit` callback nonces received before `cutoff`; returns how many.
    public func deleteGoogleWalletNonces(before cutoff: Date, limit: Int) throws -> Int {
        try execute("""
            DELETE FROM google_wallet_nonces WHERE nonce IN (
                SELECT nonce FROM google_wallet_nonces WHERE received_at < \(cutoff.storageMillis) ORDER BY received_at LIMIT \(limit))
            RETURNING nonce
            """).count
    }
}

/// What became of one save or delete callback.
public enum GoogleWalletCallbackResult: Sendable, Equatable {
    /// Taken; `changed` when the ticket's saved state changed (a second save of a saved ticket
    /// changes nothing but the time of the last callback).
    case recorded(changed: Bool)
    /// Its nonce was seen before: Google delivered it again.
    case replayed
}

/// One ticket as Google Wallet told us of it.
public struct GoogleWalletTicket: Sendable, Equatable {
    /// Saved in Google Wallet now (its last callback was a save).
    public var saved: Bool
    public var firstSavedAt: Date?
    public var lastEventAt: Date

    public init(saved: Bool, firstSavedAt: Date?, lastEventAt: Date) {
        self.saved = saved
        self.firstSavedAt = firstSavedAt
        self.lastEventAt = lastEventAt
    }
}

extension GoogleWalletOperations {
    /// The Google Wallet counts of these events (events without any are left out), in one statement.
    public func googleWalletSaved(eventIDs: [String]) throws -> [String: Int64] {
        guard !eventIDs.isEmpty else { return [:] }
        let list = SQLQuery.joined(eventIDs.map { "\($0)" }, separator: ", ")
        var counts: [String: Int64] = [:]
        for row in try execute("SELECT event_id, saved FROM google_wallet_events WHERE event_id IN (\(list))") {
            counts[try row.string("event_id")] = try row.int64("saved")
        }
        return counts
    }
}

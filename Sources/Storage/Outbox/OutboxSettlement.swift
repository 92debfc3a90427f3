public import Foundation

/// The bookkeeping of one batch of answered outbox rows, applied by `StoreSession.outbox.settleOutbox` in
/// a fixed number of statements whatever the batch size.
///
/// Pure: `step(for:current:now:)` decides what each row becomes from the row as it is locked at
/// settlement time, so the rules are tested without a database.
public struct OutboxSettlement: Sendable, Equatable {
    /// What happened to one claimed row.
    public enum Change: Sendable, Equatable {
        /// Sent: the row is deleted, or released as due now if a change arrived since the claim
        /// (its generation moved), so the newer change is sent too.
        case completed
        /// Try again at `nextAttempt` (the attempt counts); the answer is kept on the row.
        case retry(nextAttempt: Date, status: Int, reason: String?)
        /// Given up for good: the row stays as `failed`, or is released as pending if a change
        /// arrived since the claim.
        case failed(status: Int, reason: String?)
    }

    public struct Entry: Sendable, Equatable {
        public var id: Int64
        /// The generation the row had when it was claimed.
        public var generation: Int64
        public var change: Change

        public init(id: Int64, generation: Int64, change: Change) {
            self.id = id
            self.generation = generation
            self.change = change
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    /// One row's fate, given its generation and attempts as locked now.
    enum Step: Sendable, Equatable {
        case delete
        /// `lastStatus` nil keeps the row's previous answer.
        case update(attempts: Int, nextAttemptMillis: Int64, failed: Bool, lastStatus: Int?, lastReason: String?)
    }

    static func step(for entry: Entry, current: (generation: Int64, attempts: Int), now: Date) -> Step {
        let unchanged = current.generation == entry.generation
        switch entry.change {
        case .completed:
            if unchanged { return .delete }
            return .update(attempts: 0, nextAttemptMillis: now.storageMillis, failed: false, lastStatus: nil, lastReason: nil)
        case .retry(let next, let status, let reason):
            return .update(attempts: current.attempts + 1, nextAttemptMillis: next.storageMillis, failed: false, lastStatus: status, lastReason: reason)
        case .failed(let status, let reason):
            return .update(attempts: current.attempts + 1, nextAttemptMillis: now.storageMillis, failed: unchanged, lastStatus: status, lastReason: reason)
        }
    }
}

/// What a settlement did.
public struct OutboxSettlementResult: Sendable, Equatable {
    /// Rows removed (sent, unchanged since the claim): their ids, for what the caller tallies per
    /// row that left the outbox. A table that keeps completed rows (`completedState`) counts them
    /// here too.
    public var deletedIDs: Set<Int64> = []
    /// Rows updated: released, rescheduled or failed.
    public var updated = 0
    /// Rows of the batch no longer in the table (nothing to do for them).
    public var missing = 0

    /// How many rows were removed.
    public var deleted: Int { deletedIDs.count }

    public init(deletedIDs: Set<Int64> = [], updated: Int = 0, missing: Int = 0) {
        self.deletedIDs = deletedIDs
        self.updated = updated
        self.missing = missing
    }
}

/// An outbox table: every outbox (pushes, ticket emails) has the same bookkeeping columns (`id`,
/// `generation`, `attempts`, `next_attempt_at`, `claimed_until`, `state`, `last_status`,
/// `last_reason`) and a key that fixes the order in which transactions lock its rows.
public struct OutboxTable: Sendable, Equatable {
    let name: String
    /// Columns whose order is the lock order (the order enqueueing locks rows).
    let lockOrder: [String]
    /// Whether the lock-order columns are text, compared byte by byte (`COLLATE "C"`), rather than numbers.
    var textKeys = true
    /// The state a completed row is kept in, when the outbox is also the log of what was sent;
    /// nil: completed rows are deleted.
    var completedState: String? = nil

    /// `push_outbox`: locked by push token, then pass type, byte by byte (`OutboxRow.locksBefore`).
    public static let pushes = OutboxTable(name: "push_outbox", lockOrder: ["push_token", "pass_type_identifier"])
    /// `mail_outbox`: locked by ticket (`MailOutboxRow.locksBefore`).
    public static let mail = OutboxTable(name: "mail_outbox", lockOrder: ["pass_id"], textKeys: false)
    /// `google_outbox`: locked by target, byte by byte (`GoogleOutboxRow.locksBefore`).
    public static let google = OutboxTable(name: "google_outbox", lockOrder: ["target"])
    /// `webhook_deliveries`: locked by id (`WebhookDeliveryRow.locksBefore`); a delivered row
    /// stays, as `delivered`, in its endpoint's delivery log.
    public static let webhooks = OutboxTable(name: "webhook_deliveries", lockOrder: ["id"], textKeys: false, completedState: "delivered")
}

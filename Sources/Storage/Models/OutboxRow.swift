public import Foundation
public import PassIdentifiers

/// A claimed push: one (push token, pass type) pair that needs an empty push.
public struct OutboxRow: Sendable, Equatable {
    public var id: Int64
    public var pushToken: PushToken
    public var passTypeIdentifier: PassTypeIdentifier
    /// Bumped by every change enqueued for the pair; completion deletes the row only if unchanged.
    public var generation: Int64
    /// Failed attempts so far.
    public var attempts: Int
    public var firstEnqueuedAt: Date
    public var claimedUntil: Date?
    /// The event and re-push job of the change that enqueued the push last (a later change of the
    /// same push token takes the row over): its outcome is tallied for them. nil for rows enqueued
    /// before events were recorded.
    public var eventID: String?
    public var jobID: String?

    static let columns = SQLQuery(
        unsafeRaw: "id, push_token, pass_type_identifier, generation, attempts, first_enqueued_at, claimed_until, event_id, job_id"
    )

    /// Whether `a` is locked before `b` by a transaction that changes several outbox rows: by push
    /// token, then pass type, byte by byte, the order in which enqueueing locks existing rows.
    /// Record the outcomes of several pushes in this order, so recording and enqueueing never deadlock.
    public static func locksBefore(_ a: OutboxRow, _ b: OutboxRow) -> Bool {
        if a.pushToken != b.pushToken { return a.pushToken.rawValue.utf8.lexicographicallyPrecedes(b.pushToken.rawValue.utf8) }
        return a.passTypeIdentifier.rawValue.utf8.lexicographicallyPrecedes(b.passTypeIdentifier.rawValue.utf8)
    }

    public init(
        id: Int64, pushToken: PushToken, passTypeIdentifier: PassTypeIdentifier, generation: Int64, attempts: Int, firstEnqueuedAt: Date,
        claimedUntil: Date? = nil
    ) {
        self.id = id
        self.pushToken = pushToken
        self.passTypeIdentifier = passTypeIdentifier
        self.generation = generation
        self.attempts = attempts
        self.firstEnqueuedAt = firstEnqueuedAt
        self.claimedUntil = claimedUntil
    }

    init(row: SQLRow) throws {
        id = try row.int64("id")
        pushToken = PushToken(trusted: try row.string("push_token"))
        passTypeIdentifier = PassTypeIdentifier(trusted: try row.string("pass_type_identifier"))
        generation = try row.int64("generation")
        attempts = try row.int("attempts")
        firstEnqueuedAt = try row.date("first_enqueued_at")
        claimedUntil = try row.optionalDate("claimed_until")
        eventID = try row.optionalString("event_id")
        jobID = try row.optionalString("job_id")
    }
}

/// How many outbox rows are in each state.
public struct OutboxCounts: Sendable, Equatable {
    /// Waiting (due or backing off), including claimed ones.
    public var pending: Int
    /// Claimed by a dispatcher whose lease has not expired.
    public var inFlight: Int
    /// Given up on.
    public var failed: Int
}

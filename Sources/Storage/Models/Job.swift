public import Foundation

/// A resumable background job: an event re-push, or an event send of the tickets' emails.
public struct Job: Sendable, Equatable {
    public enum State: String, Sendable, Equatable, CaseIterable {
        case pending, running, done, failed
    }

    public var id: String
    public var kind: String
    public var eventID: String?
    public var state: State
    public var total: Int64
    public var done: Int64
    public var failed: Int64
    /// The last pass id processed: the next batch starts after it.
    public var cursor: Int64
    public var claimedUntil: Date?
    public var startedAt: Date?
    public var finishedAt: Date?
    public var error: String?
    public var createdAt: Date

    /// The kind of job `updateEvent` creates.
    public static let repushKind = "repush"
    /// A re-push of the event's active passes only: what `updateEvent` creates when only the
    /// announcement changed (cancelled tickets do not show one).
    public static let announcementKind = "announcement"
    /// An event send: queues the email of every ticket not sent yet (`createEmailJob`).
    public static let emailKind = "email"
    /// An event send that queues every ticket's email again, sent or not.
    public static let emailResendKind = "email-resend"

    /// Whether the job queues emails (rather than re-pushing passes).
    public var isEmail: Bool { kind == Self.emailKind || kind == Self.emailResendKind }

    /// Whether the job bumps only the event's active passes.
    public var isActiveOnly: Bool { kind == Self.announcementKind }
}

// Read from the store in an extension, so the type keeps its memberwise initializer.
extension Job {
    init(row: SQLRow) throws {
        id = try row.string("id")
        kind = try row.string("kind")
        eventID = try row.optionalString("event_id")
        state = State(rawValue: try row.string("state")) ?? .failed
        total = try row.int64("total")
        done = try row.int64("done")
        failed = try row.int64("failed")
        cursor = try row.int64("cursor")
        claimedUntil = try row.optionalDate("claimed_until")
        startedAt = try row.optionalDate("started_at")
        finishedAt = try row.optionalDate("finished_at")
        error = try row.optionalString("error")
        createdAt = try row.date("created_at")
    }
}

/// What one re-push batch did.
public struct RepushBatch: Sendable, Equatable {
    /// The job after the batch.
    public var job: Job
    public var passesBumped: Int
    public var pushTokensEnqueued: Int
    /// The revision every pass of the batch received (`nil` if none was bumped).
    public var revision: Int64?
}

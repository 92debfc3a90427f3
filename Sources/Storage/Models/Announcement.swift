public import Foundation

/// An announcement sent to the holders of an event's passes (migration 24).
public struct Announcement: Sendable, Equatable {
    public var id: String
    public var eventID: String
    public var message: String
    /// Whether its back field alerts the lock screen.
    public var notify: Bool
    public var sentAt: Date
    /// The job that put it on the passes (its reach).
    public var jobID: String?
    /// When it was withdrawn; nil while it is not.
    public var withdrawnAt: Date?
    /// The job that took it off the passes (none when they carried a later one by then).
    public var withdrawJobID: String?

    public init(
        id: String, eventID: String, message: String, notify: Bool, sentAt: Date, jobID: String? = nil, withdrawnAt: Date? = nil,
        withdrawJobID: String? = nil
    ) {
        self.id = id
        self.eventID = eventID
        self.message = message
        self.notify = notify
        self.sentAt = sentAt
        self.jobID = jobID
        self.withdrawnAt = withdrawnAt
        self.withdrawJobID = withdrawJobID
    }
}

extension Announcement {
    static let columns = SQLQuery(unsafeRaw: "id, event_id, message, notify, sent_at, job_id, withdrawn_at, withdraw_job_id")

    init(row: SQLRow) throws {
        id = try row.string("id")
        eventID = try row.string("event_id")
        message = try row.string("message")
        notify = try row.int("notify") != 0
        sentAt = try row.date("sent_at")
        jobID = try row.optionalString("job_id")
        withdrawnAt = try row.optionalDate("withdrawn_at")
        withdrawJobID = try row.optionalString("withdraw_job_id")
    }
}

/// Work due at a time (migration 24): an announcement to send or an event edit to apply. The
/// payload is the typed draft it was saved from, as the application encodes it.
public struct ScheduledAction: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case announcement
        case eventEdit = "event-edit"
    }

    public enum State: String, Sendable, Equatable, CaseIterable {
        /// Waiting for its time.
        case pending
        /// Applied, in the transaction that made its change.
        case applied
        /// It could no longer apply when its time came (`reason` says why).
        case failed
        /// Cancelled before its time.
        case cancelled
    }

    public var id: String
    public var eventID: String
    public var kind: Kind
    public var dueAt: Date
    public var state: State
    public var payload: String
    /// Why it failed.
    public var reason: String?
    /// The job its application started.
    public var jobID: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// When it was applied, failed or was cancelled.
    public var finishedAt: Date?

    public init(
        id: String, eventID: String, kind: Kind, dueAt: Date, state: State = .pending, payload: String, reason: String? = nil, jobID: String? = nil,
        createdAt: Date, updatedAt: Date, finishedAt: Date? = nil
    ) {
        self.id = id
        self.eventID = eventID
        self.kind = kind
        self.dueAt = dueAt
        self.state = state
        self.payload = payload
        self.reason = reason
        self.jobID = jobID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
    }
}

extension ScheduledAction {
    static let columns = SQLQuery(unsafeRaw: "id, event_id, kind, due_at, state, payload, reason, job_id, created_at, updated_at, finished_at")

    init(row: SQLRow) throws {
        id = try row.string("id")
        eventID = try row.string("event_id")
        let kindText = try row.string("kind")
        guard let kind = Kind(rawValue: kindText) else { throw StorageError(.backend, "scheduled action \(id) has kind \(kindText)") }
        self.kind = kind
        dueAt = try row.date("due_at")
        state = State(rawValue: try row.string("state")) ?? .failed
        payload = try row.string("payload")
        reason = try row.optionalString("reason")
        jobID = try row.optionalString("job_id")
        createdAt = try row.date("created_at")
        updatedAt = try row.date("updated_at")
        finishedAt = try row.optionalDate("finished_at")
    }
}

/// Scheduled actions by state, for `/metrics`.
public struct ScheduledActionCounts: Sendable, Equatable {
    public var byKindAndState: [ScheduledAction.Kind: [ScheduledAction.State: Int]] = [:]

    public init() {}

    public func count(_ kind: ScheduledAction.Kind, _ state: ScheduledAction.State) -> Int {
        byKindAndState[kind]?[state] ?? 0
    }
}

public import Foundation

/// What became of a ticket's email (`ticket_emails`).
public struct TicketEmail: Sendable, Equatable {
    public enum State: String, Sendable, Equatable, CaseIterable {
        /// Waiting in the mail outbox (or being retried after a temporary failure).
        case queued
        /// The SMTP server accepted it.
        case sent
        /// The SMTP server refused it for good, or it could not be written.
        case failed
    }

    public var passID: Int64
    public var eventID: String?
    /// The event send that queued it last; nil for a ticket's own send.
    public var jobID: String?
    public var state: State
    public var queuedAt: Date
    /// When the server last accepted it (kept while a resend is queued).
    public var sentAt: Date?
    public var failedAt: Date?
    /// The server's last reply: the acceptance, the refusal, or the temporary failure it is retried after.
    public var reply: String?
    /// How many times the server accepted it.
    public var sentCount: Int
    public var updatedAt: Date

    static let columns = SQLQuery(unsafeRaw: "pass_id, event_id, job_id, state, queued_at, sent_at, failed_at, reply, sent_count, updated_at")
}

// Read from the store in an extension, so the type keeps its memberwise initializer.
extension TicketEmail {
    init(row: SQLRow) throws {
        passID = try row.int64("pass_id")
        eventID = try row.optionalString("event_id")
        jobID = try row.optionalString("job_id")
        state = State(rawValue: try row.string("state")) ?? .failed
        queuedAt = try row.date("queued_at")
        sentAt = try row.optionalDate("sent_at")
        failedAt = try row.optionalDate("failed_at")
        reply = try row.optionalString("reply")
        sentCount = try row.int("sent_count")
        updatedAt = try row.date("updated_at")
    }
}

/// How many of a set of tickets' emails are in each state.
public struct EmailCounts: Sendable, Equatable {
    public var queued = 0
    public var sent = 0
    public var failed = 0

    public init(queued: Int = 0, sent: Int = 0, failed: Int = 0) {
        self.queued = queued
        self.sent = sent
        self.failed = failed
    }
}

/// The answer about one claimed email, as `StoreSession.mail.recordEmails` keeps it on the ticket.
public struct EmailResult: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case sent
        /// A temporary failure: retried later (the ticket stays queued).
        case retrying
        case failed
    }

    /// The outbox row's ticket: for an order's email, the order's first ticket.
    public var passID: Int64
    /// The order whose email it was; nil for a ticket's own.
    public var orderID: String?
    public var kind: Kind
    /// The server's reply (or what went wrong without one), at most 500 characters kept.
    public var reply: String?

    public init(passID: Int64, orderID: String? = nil, kind: Kind, reply: String?) {
        self.passID = passID
        self.orderID = orderID
        self.kind = kind
        self.reply = reply
    }
}

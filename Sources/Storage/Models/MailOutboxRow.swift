public import Foundation

/// A claimed ticket email: one `mail_outbox` row, with the ticket and event its message is written
/// from (as they are at the claim, so a rename before the send is in the message).
public struct MailOutboxRow: Sendable, Equatable {
    public var id: Int64
    public var passID: Int64
    /// Bumped by every send asked for while the row exists; completion deletes the row only if unchanged.
    public var generation: Int64
    /// Failed attempts so far.
    public var attempts: Int
    public var firstEnqueuedAt: Date
    /// Until when the row is ours: a message still waiting to leave after this is not sent (another
    /// process may have claimed the row since).
    public var claimedUntil: Date?
    /// The ticket and its event; nil when the ticket is gone, or belongs to no event. For an
    /// order's email, the order's first ticket.
    public var ticket: StoredPass?
    public var event: Event?
    /// The order whose email the row sends (nil: the ticket's own), and the order as it is at
    /// the claim, with its tickets in issue order.
    public var orderID: String?
    public var order: StoredOrder?
    public var orderTickets: [StoredPass] = []

    static let columns = SQLQuery(unsafeRaw: "id, pass_id, generation, attempts, first_enqueued_at, claimed_until, order_id")

    /// Whether `a` is locked before `b` by a transaction that changes several rows: by ticket, the
    /// order in which enqueueing locks existing rows.
    public static func locksBefore(_ a: MailOutboxRow, _ b: MailOutboxRow) -> Bool {
        a.passID < b.passID
    }

    init(row: SQLRow) throws {
        id = try row.int64("id")
        passID = try row.int64("pass_id")
        generation = try row.int64("generation")
        attempts = try row.int("attempts")
        firstEnqueuedAt = try row.date("first_enqueued_at")
        claimedUntil = try row.optionalDate("claimed_until")
        orderID = try row.optionalString("order_id")
    }
}

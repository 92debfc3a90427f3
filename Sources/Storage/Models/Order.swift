public import Foundation

/// Tickets issued together for one buyer (`orders`): one email for all of them, one page, one
/// download of all their passes.
public struct StoredOrder: Sendable, Equatable {
    /// The server's random key, the order's id in the API; the order page's token is derived from it.
    public var id: String
    public var eventID: String
    /// The organizer's own id for the order, unique within the event; nil when none was given (or
    /// it was erased).
    public var externalID: String?
    /// Who the order's email goes to; nil once erased.
    public var buyerEmail: String?
    public var buyerName: String?
    /// The language of the order's email; nil: its first ticket's, else the event's.
    public var language: String?
    /// The SHA-256 of the order page's token.
    public var tokenHash: [UInt8]
    public var createdAt: Date
    /// What became of the order's email; nil until one was queued.
    public var email: OrderEmail?

    static let columnNames = [
        "id", "event_id", "external_id", "buyer_email", "buyer_name", "language", "token_hash", "created_at", "email_state",
        "email_job_id", "email_queued_at", "email_sent_at", "email_failed_at", "email_reply", "email_sent_count",
    ]

    static let columns = SQLQuery(unsafeRaw: columnNames.joined(separator: ", "))

    /// The columns qualified with a table alias (`o.id, o.event_id, …`).
    static func columns(prefix: String) -> SQLQuery {
        SQLQuery(unsafeRaw: columnNames.map { "\(prefix).\($0)" }.joined(separator: ", "))
    }
}

// Read from the store in an extension, so the type keeps its memberwise initializer.
extension StoredOrder {
    init(row: SQLRow) throws {
        id = try row.string("id")
        eventID = try row.string("event_id")
        externalID = try row.optionalString("external_id")
        buyerEmail = try row.optionalString("buyer_email")
        buyerName = try row.optionalString("buyer_name")
        language = try row.optionalString("language")
        tokenHash = try row.bytes("token_hash")
        createdAt = try row.date("created_at")
        if let state = try row.optionalString("email_state") {
            email = OrderEmail(
                state: TicketEmail.State(rawValue: state) ?? .failed, jobID: try row.optionalString("email_job_id"),
                queuedAt: try row.optionalDate("email_queued_at") ?? createdAt, sentAt: try row.optionalDate("email_sent_at"),
                failedAt: try row.optionalDate("email_failed_at"), reply: try row.optionalString("email_reply"),
                sentCount: try row.int("email_sent_count")
            )
        } else {
            email = nil
        }
    }
}

/// What became of an order's email: the states of a ticket's (`TicketEmail`). The order's tickets
/// that were active when it was queued show the same state as their own `emailStatus`.
public struct OrderEmail: Sendable, Equatable {
    public var state: TicketEmail.State
    /// The event send that queued it last; nil for the order's own send.
    public var jobID: String?
    public var queuedAt: Date
    public var sentAt: Date?
    public var failedAt: Date?
    /// The server's last reply.
    public var reply: String?
    /// How many times the server accepted it.
    public var sentCount: Int

    public init(
        state: TicketEmail.State, jobID: String? = nil, queuedAt: Date, sentAt: Date? = nil, failedAt: Date? = nil, reply: String? = nil,
        sentCount: Int = 0
    ) {
        self.state = state
        self.jobID = jobID
        self.queuedAt = queuedAt
        self.sentAt = sentAt
        self.failedAt = failedAt
        self.reply = reply
        self.sentCount = sentCount
    }
}

/// An order to create with the tickets of an import (`StoreSession.passes.importPasses(_:orders:…)`).
public struct NewOrder: Sendable, Equatable {
    /// The key it gets when created (the caller derives the page's token from it); the passes
    /// of the import name their order by it.
    public var id: String
    /// How the organizer named it: the event's order whose external id, or whose key, this is
    /// is the same order; a new order keeps it as its external id. Nil: always a new order.
    public var externalID: String?
    public var buyerEmail: String?
    public var buyerName: String?
    public var language: String?
    public var tokenHash: [UInt8]

    public init(id: String, externalID: String?, buyerEmail: String?, buyerName: String? = nil, language: String? = nil, tokenHash: [UInt8]) {
        self.id = id
        self.externalID = externalID
        self.buyerEmail = buyerEmail
        self.buyerName = buyerName
        self.language = language
        self.tokenHash = tokenHash
    }
}

/// An order with how many tickets it holds (lists).
public struct OrderSummary: Sendable, Equatable {
    public var order: StoredOrder
    public var tickets: Int
    /// Its tickets not cancelled.
    public var active: Int

    public init(order: StoredOrder, tickets: Int, active: Int) {
        self.order = order
        self.tickets = tickets
        self.active = active
    }
}

/// What an import with orders did (`StoreSession.passes.importPasses(_:orders:eventID:now:)`).
public struct OrderedImport: Sendable, Equatable {
    /// Every pass, in the order given.
    public var passes: [ImportedPass]
    /// The order each `NewOrder` that new passes named became, by the `NewOrder`'s id: the
    /// event's existing order, or the one created.
    public var orders: [String: StoredOrder]
    /// The ids of the `NewOrder`s this import created (as given: the stored order keeps that id).
    public var createdOrders: Set<String>
}

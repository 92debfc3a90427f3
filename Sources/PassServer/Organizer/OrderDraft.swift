import Foundation
import Storage

/// A new order as an organizer gave it, not yet checked: a buyer and the tickets issued for them
/// together (`POST …/orders`).
struct OrderDraft: Sendable, Equatable {
    /// The organizer's own id for the order, unique within the event.
    var externalID: String?
    var buyerEmail: String?
    var buyerName: String?
    /// The language of the order's email; nil: its first ticket's, else the event's.
    var language: String?
    var tickets: [TicketDraft]?
    var unreadable: [OrganizerError.Issue] = []

    static let fields = ["externalId", "buyerEmail", "buyerName", "language", "tickets"]
}

/// The order columns of an upload's rows: rows sharing an `orderId` are one order, whose buyer
/// any of them may name (those that do must agree).
extension TicketDraft {
    static let orderFields = ["orderId", "buyerEmail", "buyerName"]
}

/// One order of a checked upload: the rows sharing its `orderId`.
struct ImportOrder: Sendable, Equatable {
    /// The `orderId` of its rows: an order of the event (its external id or its id), or the
    /// external id of a new one.
    var key: String
    /// The first row naming it.
    var row: Int
    var buyerEmail: String?
    var buyerName: String?
}

/// An order with its tickets and what became of their emails.
struct Order: Sendable, Equatable {
    var order: StoredOrder
    /// In issue order.
    var tickets: [Ticket]

    /// The tickets not cancelled: those the order's email lists and its `.pkpasses` files hold.
    var activeTickets: [Ticket] { tickets.filter(\.isActive) }
}

/// An order issued with its tickets: new, or the one the event already had with its external id.
struct IssuedOrder: Sendable, Equatable {
    var order: Order
    var created: Bool
}

/// One page of an event's orders.
struct OrderList: Sendable, Equatable {
    var orders: [OrderSummary]
    var nextCursor: String?
}

/// Which of an event's orders to list, oldest first.
struct OrderQuery: Sendable, Equatable {
    /// The `nextCursor` of the previous page.
    var cursor: String?
    /// 1 to 500.
    var limit = 50
    var unreadable: [OrganizerError.Issue] = []

    static let fields = ["cursor", "limit"]
}

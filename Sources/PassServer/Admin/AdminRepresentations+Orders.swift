import Foundation
import Storage

/// An order as the admin API shows it: its buyer, its email, its tickets (on the order's own
/// read) and, for admin tokens, its links: the buyer's page and each `.pkpasses` file of its
/// active tickets (a viewer gets neither: the page holds every ticket's link).
struct OrderBody: Encodable {
    var orderId: String
    var eventId: String
    var externalId: String?
    var buyerEmail: String?
    var buyerName: String?
    /// The language of the order's email; absent: its first ticket's, else the event's.
    var language: String?
    var createdAt: String
    /// Tickets in the order, and those of them not cancelled.
    var ticketCount: Int
    var activeTickets: Int
    /// What became of the order's email; absent until one was queued.
    var emailStatus: EmailStatusBody?
    /// The buyer's page, `PUBLIC_URL/orders/{token}` (admin tokens only).
    var orderURL: String?
    /// The `.pkpasses` files of the active tickets, ten passes at most each (admin tokens only).
    var bundles: [BundleBody]?
    /// The tickets, in issue order (on the order's own read and when it is issued).
    var tickets: [TicketBody]?

    /// One `.pkpasses` file of the order.
    struct BundleBody: Encodable {
        /// From 1.
        var part: Int
        /// Passes in the file.
        var tickets: Int
        var url: String
    }

    init(_ order: StoredOrder, ticketCount: Int, activeTickets: Int) {
        orderId = order.id
        eventId = order.eventID
        externalId = order.externalID
        buyerEmail = order.buyerEmail
        buyerName = order.buyerName
        language = order.language
        createdAt = ISODate.format(order.createdAt)
        self.ticketCount = ticketCount
        self.activeTickets = activeTickets
        emailStatus = order.email.map(EmailStatusBody.init)
    }
}

/// One page of an event's orders.
struct OrderListBody: Encodable {
    var orders: [OrderBody]
    var nextCursor: String?
}

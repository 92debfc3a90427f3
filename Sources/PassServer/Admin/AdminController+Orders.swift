import Foundation
import HTTPServer
import Storage

extension AdminController {
    /// `POST /admin/v1/events/{eventId}/orders`: issues an order, its buyer and its tickets, all
    /// or none (`notify: true` queues the order's one email with it). With an `externalId` the
    /// event's order has, that order is returned (200) and nothing is issued.
    func createOrder(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var input = try AdminInput(request, allowed: Set(OrderDraft.fields + ["notify"]))
        let notify = input.boolean("notify").value ?? false
        let draft = input.orderDraft()
        let issued = try organizer.issueOrder(draft, of: event, notify: notify, requestID: request.requestID)
        return .json(try orderBody(issued.order, links: true), status: issued.created ? 201 : 200, encoder: .api)
    }

    /// `GET /admin/v1/events/{eventId}/orders`: the event's orders, oldest first, a page at a time.
    func listOrders(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var query = AdminInput.query(request)
        let links = try showsDownloadLinks(request)
        let list = try organizer.orders(of: event, query.orderQuery())
        let orders = try list.orders.map { summary in
            var body = OrderBody(summary.order, ticketCount: summary.tickets, activeTickets: summary.active)
            if links { body.orderURL = try passes.orderURL(for: summary.order) }
            return body
        }
        return .json(OrderListBody(orders: orders, nextCursor: list.nextCursor), encoder: .api)
    }

    /// `GET /admin/v1/orders/{orderId}`: the order with its tickets; its links only for an admin token.
    func showOrder(_ request: Request) throws -> Response {
        let links = try showsDownloadLinks(request)
        let order = try organizer.details(of: try organizer.order(id: request.parameters["orderId"]))
        return .json(try orderBody(order, links: links), encoder: .api)
    }

    /// `POST /admin/v1/orders/{orderId}/email`: queues the order's email to its buyer (send, or
    /// send again). 202 with the order; 409 when email is off, the order has no buyer's address
    /// or every ticket of it is cancelled.
    func emailOrder(_ request: Request) throws -> Response {
        let order = try organizer.order(id: request.parameters["orderId"])
        try AdminInput(request, allowed: [], bodyRequired: false).validate()
        try mailing.email(order, requestID: request.requestID)
        return .json(try orderBody(try organizer.details(of: try organizer.order(id: order.id)), links: true), status: 202, encoder: .api)
    }

    /// The order as the API shows it, with its tickets; `links`: with the buyer's page, the
    /// `.pkpasses` files and the tickets' download links (admin tokens).
    func orderBody(_ order: Order, links: Bool) throws -> OrderBody {
        var body = OrderBody(order.order, ticketCount: order.tickets.count, activeTickets: order.activeTickets.count)
        body.tickets = try order.tickets.map { try ticketBody($0, downloadURL: links) }
        guard links else { return body }
        let (page, files) = try orderLinks(order)
        body.orderURL = page
        body.bundles = files.enumerated().map { OrderBody.BundleBody(part: $0.offset + 1, tickets: $0.element.count, url: $0.element.url) }
        return body
    }

    /// The buyer's page of the order and its `.pkpasses` files, each with how many passes it holds.
    func orderLinks(_ order: Order) throws -> (page: String, files: [(url: String, count: Int)]) {
        let page = try passes.orderURL(for: order.order)
        let parts = Organizer.parts(of: order.tickets.map(\.pass))
        return (page, parts.enumerated().map { (page + "?format=pkpasses&part=\($0.offset + 1)", $0.element.count) })
    }
}

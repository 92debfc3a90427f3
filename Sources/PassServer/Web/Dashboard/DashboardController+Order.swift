import Foundation
import HTTPServer
import Storage

extension DashboardController {
    func registerOrders(in router: inout Router) {
        router.get("/admin/orders/:orderId", maxBodySize: Self.pageBodyLimit, query: ["notice"]) { request in
            read(request) { visitor in try orderPage(request, visitor) }
        }
        router.post("/admin/orders/:orderId/email", preflight: formPreflight()) { request in write(request) { _, _ in try emailOrder(request) } }
    }

    /// `GET /admin/orders/{orderId}`: the order with its tickets; its links only for an admin.
    func orderPage(_ request: Request, _ visitor: DashboardSessions.Visitor) throws -> Response {
        let order = try organizer.details(of: try organizer.order(id: request.parameters["orderId"]))
        let event = try organizer.event(id: order.order.eventID)
        let links = visitor.canWrite ? try admin.orderLinks(order) : nil
        let page = OrderPage(
            order: order, event: event, visitor: visitor, mailEnabled: admin.mail.isEnabled, links: links, notice: Self.notice(request)
        )
        return .html(page.render())
    }

    func emailOrder(_ request: Request) throws -> Response {
        let order = try organizer.order(id: request.parameters["orderId"])
        try admin.mailing.email(order, requestID: request.requestID)
        return Self.redirect("/admin/orders/\(order.id)?notice=email-queued")
    }
}

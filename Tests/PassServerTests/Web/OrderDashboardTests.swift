import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// Orders in the dashboard over HTTP: a ticket's page names its order and links the order's page,
/// which lists every ticket of it with its status, the buyer (escaped), for an admin the buyer's
/// page and its `.pkpasses` files, and sends the order's email again; a viewer reads it without
/// links or forms.
@Suite("Dashboard: orders", .offCooperativePool, .timeLimit(.minutes(5)), .tags(.endToEnd))
struct OrderDashboardTests {
    /// The markup from the element with `id` to the end of its tag `tag` (nil when there is none).
    static func element(_ id: String, in page: String, tag: String = "p") -> String? {
        guard let start = page.range(of: #"id="\#(id)""#), let end = page[start.upperBound...].range(of: "</\(tag)>") else { return nil }
        return String(page[start.upperBound..<end.lowerBound])
    }

    @Test("the ticket page shows its order; the order page lists its tickets, buyer and links, and resends its email", arguments: Backend.allCases)
    func orderPages(_ backend: Backend) async throws {
        let fixture = try MailFixture.start(backend)
        defer { fixture.stop() }
        let app = fixture.app
        let event = try app.createEvent()
        let order = try OrderSupport.createOrder(
            app, event: event, count: 3, buyerName: "<script>alert(1)</script> Bea", externalID: "SHOP-7", namePrefix: "Holder"
        )
        let id = try #require(order["orderId"] as? String)
        let serials = OrderSupport.serials(order)
        #expect(try app.admin("POST", "/admin/v1/tickets/\(serials[2])/cancel").status == 200)
        let (client, _) = try DashboardClient.signIn(app, token: app.adminToken)

        let ticket = try client.get("/admin/tickets/\(serials[0])")
        #expect(ticket.status == 200)
        let named = try #require(Self.element("ticket-order", in: ticket.text), "the ticket page names its order")
        #expect(named.contains("href=\"/admin/orders/\(id)\"") && named.contains("Order SHOP-7") && named.contains("3 tickets"))
        #expect(ticket.text.contains("id=\"email-order\""), "its email is the order's")

        let page = try client.get("/admin/orders/\(id)")
        #expect(page.status == 200)
        #expect(page.text.contains("<h1>Order SHOP-7</h1>"))
        #expect(Self.element("order-buyer", in: page.text, tag: "dd")?.contains("&lt;script&gt;alert(1)&lt;/script&gt; Bea") == true)
        #expect(!page.text.contains("<script>alert"), "the buyer's name is text")
        #expect(Self.element("order-buyer-email", in: page.text, tag: "dd")?.contains("buyer@example.com") == true)
        let table = try #require(Self.element("order-tickets", in: page.text, tag: "table"))
        for (index, serial) in serials.enumerated() {
            #expect(table.contains("href=\"/admin/tickets/\(serial)\"") && table.contains("Holder \(index + 1)"))
        }
        #expect(table.components(separatedBy: "status-bad\">cancelled").count == 2 && table.components(separatedBy: "status-ok\">active").count == 3)
        #expect(Self.element("order-link", in: page.text)?.contains(try #require(order["orderURL"] as? String)) == true)
        let files = try #require(Self.element("order-files", in: page.text, tag: "ul"))
        #expect(files.contains("?format=pkpasses&amp;part=1") && files.contains("2 passes") && !files.contains("part=2"))

        // The order's email, sent from its page: one message to the buyer.
        let csrf = try #require(DashboardClient.csrf(in: page.text))
        let sent = try client.post("/admin/orders/\(id)/email", [], csrf: csrf)
        #expect(sent.status == 303 && sent.header("Location") == "/admin/orders/\(id)?notice=email-queued", "\(sent.status) \(sent.text)")
        let messages = try await fixture.smtp.waitForMessages(1, timeout: 60)
        #expect(messages.first?.rcptTos == ["buyer@example.com"])
        try await eventually("the order page shows the email sent", timeout: 60) {
            Self.element("email-state", in: try client.get("/admin/orders/\(id)").text)?.contains("sent") == true
        }

        // A viewer reads the order, without its links or the email form.
        let viewerToken = try AdminRoleTests.token(app, role: .viewer)
        let (viewer, _) = try DashboardClient.signIn(app, token: viewerToken)
        let seen = try viewer.get("/admin/orders/\(id)")
        #expect(seen.status == 200 && seen.text.contains("Holder 1"))
        #expect(Self.element("order-link", in: seen.text) == nil && Self.element("order-files", in: seen.text, tag: "ul") == nil)
        #expect(!seen.text.contains("/admin/orders/\(id)/email"))
        #expect(try client.get("/admin/orders/nope").status == 404)
    }
}

/// An order's dashboard pages in headless Chromium (Tests/Browser/dashboard_order.py), at both
/// widths and in both schemes.
@Suite("Web: an order in the dashboard, in a browser", .offCooperativePool, .tags(.endToEnd))
struct OrderDashboardBrowserTests {
    @Test("the order page and its ticket's page lead to each other; at 1280×800 and 390×844, light and dark", .timeLimit(.minutes(5)))
    func screens() async throws {
        let app = try await TestApp.startOffPool(.sqlite)
        defer { app.stop() }
        let (id, serial) = try await offPool { () throws -> (String, String) in
            let event = try app.createEvent(name: "Autumn Jazz Night", venue: "Harbour Hall, Main Stage")
            let order = try OrderSupport.createOrder(app, event: event, count: 12, buyerName: "Beatriz Sousa", externalID: "SHOP-2048", namePrefix: "Guest")
            return (try #require(order["orderId"] as? String), OrderSupport.serials(order)[0])
        }
        try await BrowserScript.expectPasses(
            "dashboard_order.py", serverURL: app.baseURL, name: "dashboard-order",
            environment: [
                "ADMIN_TOKEN": app.adminToken, "ORDER_ID": id, "ORDER_NAME": "SHOP-2048", "SERIAL": serial,
                "NAMES": (1...12).map { "Guest \($0)" }.joined(separator: "|"),
            ],
            timeLimit: .seconds(240), keepingOutput: true
        )
    }
}

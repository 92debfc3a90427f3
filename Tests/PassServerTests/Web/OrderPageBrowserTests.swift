import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

/// The buyer's page of an order in headless Chromium (Tests/Browser/order_page.py), at a phone's
/// and a desktop's width: every ticket with its Apple and Google buttons, a cancelled one shown
/// as such without any, one "Add all" button per `.pkpasses` file; without Google Wallet Apple's
/// buttons only; Japanese; an unknown link answered like an unknown ticket link.
@Suite("Web: the buyer's page of an order in a browser", .offCooperativePool, .tags(.endToEnd))
struct OrderPageBrowserTests {
    @Test("every ticket with its buttons and Add all per part, at phone and desktop width; cancelled, plain, Japanese, unknown", .timeLimit(.minutes(5)))
    func page() async throws {
        let google = try await offPool { try GoogleFixture(.sqlite) }
        defer { google.stop() }
        let plain = try await TestApp.startOffPool(.postgres)
        defer { plain.stop() }
        // The links of the two orders (their pages' paths).
        let (path, plainPath) = try await offPool { () throws -> (String, String) in
            let event = try google.app.createEvent()
            let order = try OrderSupport.createOrder(google.app, event: event, count: 12, namePrefix: "Guest")
            try #require(try google.app.admin("POST", "/admin/v1/tickets/\(OrderSupport.serials(order)[4])/cancel").status == 200)
            let plainOrder = try OrderSupport.createOrder(plain, event: try plain.createEvent(), count: 4)
            return (try OrderSupport.target(order["orderURL"] as? String), try OrderSupport.target(plainOrder["orderURL"] as? String))
        }
        try await BrowserScript.expectPasses(
            "order_page.py", serverURL: google.app.baseURL, name: "order-page",
            environment: [
                "ORDER_PATH": path, "NAMES": (1...12).map { "Guest \($0)" }.joined(separator: "|"),
                "CANCELLED_NAME": "Guest 5", "EVENT_NAME": "Swift Night",
                "PLAIN_URL": plain.baseURL + plainPath,
                "UNKNOWN_PATH": "/orders/" + String(repeating: "Q", count: 43),
            ],
            timeLimit: .seconds(240), keepingOutput: true
        )
    }
}

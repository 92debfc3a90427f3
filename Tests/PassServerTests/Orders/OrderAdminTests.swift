import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// The admin API of orders: issuing one with its tickets (checked field by field, once per
/// external id), reading it with its tickets, buyer and links (a viewer without links), an
/// event's orders a page at a time, the ticket list filtered by order, each ticket's `orderId`.
@Suite("Orders: admin API", .offCooperativePool, .timeLimit(.minutes(5)))
struct OrderAdminTests {
    @Test("an order is issued all or none, once per externalId, and read with its tickets, buyer and links", arguments: Backend.allCases)
    func issueAndRead(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let order = try OrderSupport.createOrder(app, event: event, count: 3, externalID: "SHOP-1001")
        let id = try #require(order["orderId"] as? String)
        #expect(order["externalId"] as? String == "SHOP-1001" && order["eventId"] as? String == event)
        #expect(order["buyerEmail"] as? String == "buyer@example.com" && order["buyerName"] as? String == "Bea Buyer")
        #expect(order["ticketCount"] as? Int == 3 && order["emailStatus"] == nil)
        #expect((order["orderURL"] as? String)?.hasPrefix("https://passes.example.test/orders/") == true)

        // Once per external id: the same call again answers the order, and issues nothing.
        let again = try app.admin("POST", "/admin/v1/events/\(event)/orders", json: #"{"externalId":"SHOP-1001","buyerEmail":"x@example.com","tickets":[{"attendeeName":"Z"}]}"#)
        #expect(again.status == 200 && again.jsonObject?["orderId"] as? String == id && again.jsonObject?["buyerEmail"] as? String == "buyer@example.com")
        #expect(OrderSupport.serials(try #require(again.jsonObject)) == OrderSupport.serials(order))

        // Read: the tickets with their orderId and download links, the links of the order.
        let shown = try #require(try app.admin("GET", "/admin/v1/orders/\(id)").jsonObject)
        #expect(OrderSupport.serials(shown) == OrderSupport.serials(order))
        #expect((shown["tickets"] as? [[String: Any]])?.allSatisfy { $0["orderId"] as? String == id && $0["downloadURL"] is String } == true)
        #expect(shown["orderURL"] as? String == order["orderURL"] as? String && OrderSupport.bundles(shown).map(\.tickets) == [3])
        let ticket = try #require(try app.admin("GET", "/admin/v1/tickets/\(OrderSupport.serials(order)[0])").jsonObject)
        #expect(ticket["orderId"] as? String == id)
        let lone = try app.issueTicket(event: event)
        #expect(try app.admin("GET", "/admin/v1/tickets/\(lone)").jsonObject?["orderId"] == nil)

        // A viewer reads the order without its links (the page holds every ticket's link).
        let viewer = try AdminRoleTests.token(app, role: .viewer)
        let seen = try #require(try app.request("GET", "/admin/v1/orders/\(id)", headers: [("Authorization", "Bearer \(viewer)")]).jsonObject)
        #expect(seen["orderURL"] == nil && seen["bundles"] == nil)
        #expect((seen["tickets"] as? [[String: Any]])?.allSatisfy { $0["downloadURL"] == nil } == true)
        let listed = try #require(try app.request("GET", "/admin/v1/events/\(event)/orders", headers: [("Authorization", "Bearer \(viewer)")]).jsonObject)
        #expect((listed["orders"] as? [[String: Any]])?.allSatisfy { $0["orderURL"] == nil } == true)
        #expect(try app.request("POST", "/admin/v1/events/\(event)/orders", headers: [("Authorization", "Bearer \(viewer)")]).status == 403)

        #expect(try app.admin("GET", "/admin/v1/orders/nope").status == 404)
        #expect(try app.admin("GET", "/admin/v1/orders/\(String(repeating: "x", count: 65))").status == 404)
    }

    @Test("every invalid field of an order is named; nothing is issued", arguments: Backend.allCases)
    func refusals(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let cases: [(body: String, named: [String])] = [
            (#"{"notify":true,"tickets":[{"attendeeName":"A"}]}"#, ["notify: needs buyerEmail"]),
            (#"{"buyerEmail":"b@example.com"}"#, ["tickets: is required"]),
            (#"{"buyerEmail":"b@example.com","tickets":[]}"#, ["tickets: must hold 1 to 10000 tickets"]),
            (#"{"buyerEmail":"nope","tickets":[{"attendeeName":"A"},{"seat":"B"},7]}"#,
             ["buyerEmail: is not an email address", "tickets[1].attendeeName: is required", "tickets[2]: must be an object"]),
            (#"{"buyerEmail":"b@example.com","tickets":[{"attendeeName":"A","externalId":"X"},{"attendeeName":"B","externalId":"X"}],"colour":1}"#,
             ["colour: unknown field", "tickets[1].externalId: repeats the externalId of tickets[0]"]),
            (#"{"buyerEmail":"b@example.com","language":"Japanese","tickets":[{"attendeeName":"A","orderId":"O"}]}"#,
             ["language: must be a language code", "tickets[0].orderId: unknown field"]),
        ]
        for (body, named) in cases {
            let response = try app.admin("POST", "/admin/v1/events/\(event)/orders", json: body)
            #expect(response.status == 400, "\(body): \(response.text)")
            let message = (response.jsonObject?["error"] as? [String: Any])?["message"] as? String ?? ""
            for name in named { #expect(message.contains(name), "\(body): \(message)") }
        }
        #expect((try app.admin("GET", "/admin/v1/events/\(event)/tickets").jsonObject?["tickets"] as? [[String: Any]])?.isEmpty == true)
        #expect(try app.admin("POST", "/admin/v1/events/nope/orders", json: #"{"buyerEmail":"b@example.com","tickets":[{"attendeeName":"A"}]}"#).status == 404)
        // notify needs email, which is off here: 409 and nothing issued.
        let notify = try app.admin("POST", "/admin/v1/events/\(event)/orders", json: #"{"buyerEmail":"b@example.com","notify":true,"tickets":[{"attendeeName":"A"}]}"#)
        #expect(notify.status == 409 && notify.text.contains("email_disabled"))
        #expect(try app.admin("POST", "/admin/v1/orders/nope/email").status == 404)
    }

    @Test("an event's orders a page at a time; its tickets filtered by order", arguments: Backend.allCases)
    func listAndFilter(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let orders = try (1...3).map { try OrderSupport.createOrder(app, event: event, count: $0, namePrefix: "Order\($0)") }
        _ = try app.issueTicket(event: event)
        var seen: [String] = []
        var cursor: String?
        repeat {
            let query = "limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try #require(try app.admin("GET", "/admin/v1/events/\(event)/orders?\(query)").jsonObject)
            let listed = try #require(page["orders"] as? [[String: Any]])
            #expect(listed.count <= 2)
            seen += listed.compactMap { $0["orderId"] as? String }
            #expect(listed.allSatisfy { $0["tickets"] == nil && $0["orderURL"] is String })
            cursor = page["nextCursor"] as? String
        } while cursor != nil && seen.count < 10
        #expect(seen == orders.compactMap { $0["orderId"] as? String }, "every order once, oldest first")
        #expect(try app.admin("GET", "/admin/v1/events/\(event)/orders?cursor=bad").status == 400)
        #expect(try app.admin("GET", "/admin/v1/events/\(event)/orders?colour=1").status == 400)

        let second = try #require(orders[1]["orderId"] as? String)
        let filtered = try #require(try app.admin("GET", "/admin/v1/events/\(event)/tickets?orderId=\(second)").jsonObject?["tickets"] as? [[String: Any]])
        #expect(filtered.compactMap { $0["serialNumber"] as? String } == OrderSupport.serials(orders[1]))
        let none = try app.admin("GET", "/admin/v1/events/\(event)/tickets?orderId=unknown").jsonObject?["tickets"] as? [[String: Any]]
        #expect(none?.isEmpty == true)
        let all = try app.admin("GET", "/admin/v1/events/\(event)/tickets").jsonObject?["tickets"] as? [[String: Any]]
        #expect(all?.count == 7)
    }
}

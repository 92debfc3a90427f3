import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// Orders from uploads: CSV rows (and JSON rows) sharing an `orderId` form one order with the
/// buyer they name; an upload of the same rows again makes no second order; the export writes the
/// order columns and imports again as the same orders.
@Suite("Orders: uploads and the CSV export", .offCooperativePool, .timeLimit(.minutes(6)))
struct OrderImportTests {
    static let csv = """
        attendeeName,attendeeEmail,seat,externalId,orderId,buyerEmail,buyerName\r
        Ada Lovelace,ada@example.com,A1,T-1,ORD-1,charles@example.com,Charles Babbage\r
        Annabella Milbanke,,A2,T-2,ORD-1,,\r
        Grace Hopper,,B1,T-3,ORD-2,grace@example.com,\r
        Alan Turing,,C1,T-4,,,\r
        Howard Aiken,,B2,T-5,ORD-2,grace@example.com,Grace Hopper\r
        Kathleen Booth,,B3,T-6,ORD-2,,\r
        Joan Clarke,,D1,T-7,,,\r
        """

    static func upload(_ app: TestApp, event: String, csv: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> TestResponse {
        try app.request("POST", "/admin/v1/events/\(event)/tickets:batch", headers: [
            ("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "text/csv; charset=utf-8"),
        ], body: Array(csv.utf8))
    }

    /// The event's orders: external id → (buyer's email, buyer's name, ticket count).
    static func orders(_ app: TestApp, event: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: [String: Any]] {
        let list = try #require(try app.admin("GET", "/admin/v1/events/\(event)/orders").jsonObject?["orders"] as? [[String: Any]], sourceLocation: sourceLocation)
        return Dictionary(uniqueKeysWithValues: list.map { (($0["externalId"] as? String) ?? ($0["orderId"] as? String ?? ""), $0) })
    }

    /// The event's tickets by attendee name: (order id or nil).
    static func orderOfTicket(_ app: TestApp, event: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: String?] {
        let tickets = try #require(try app.admin("GET", "/admin/v1/events/\(event)/tickets?limit=500").jsonObject?["tickets"] as? [[String: Any]], sourceLocation: sourceLocation)
        return Dictionary(uniqueKeysWithValues: tickets.map { (($0["attendeeName"] as? String) ?? "", $0["orderId"] as? String) })
    }

    @Test("rows sharing an orderId form one order with its buyer; an upload of the same rows makes no second order", arguments: Backend.allCases)
    func csvOrders(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let response = try Self.upload(app, event: event, csv: Self.csv)
        try #require(response.status == 200, "\(response.text)")
        let entries = try #require(response.jsonObject?["tickets"] as? [[String: Any]])
        #expect(response.jsonObject?["created"] as? Int == 7)
        let orders = try Self.orders(app, event: event)
        #expect(Set(orders.keys) == ["ORD-1", "ORD-2"])
        let first = try #require(orders["ORD-1"])
        let second = try #require(orders["ORD-2"])
        #expect(first["buyerEmail"] as? String == "charles@example.com" && first["buyerName"] as? String == "Charles Babbage" && first["ticketCount"] as? Int == 2)
        #expect(second["buyerEmail"] as? String == "grace@example.com" && second["buyerName"] as? String == "Grace Hopper" && second["ticketCount"] as? Int == 3)
        let byName = try Self.orderOfTicket(app, event: event)
        #expect(byName["Ada Lovelace"] == first["orderId"] as? String && byName["Annabella Milbanke"] == first["orderId"] as? String)
        #expect(["Grace Hopper", "Howard Aiken", "Kathleen Booth"].allSatisfy { byName[$0] == second["orderId"] as? String })
        #expect(byName["Alan Turing"] == .some(nil) && byName["Joan Clarke"] == .some(nil), "rows without orderId are tickets of their own")
        #expect(entries.map { $0["orderId"] as? String } == [first, first, second, nil, second, second, nil].map { $0?["orderId"] as? String })

        // The same file again: every ticket exists (by externalId), no order is made twice.
        let again = try Self.upload(app, event: event, csv: Self.csv)
        #expect(again.status == 200 && again.jsonObject?["created"] as? Int == 0 && again.jsonObject?["existing"] as? Int == 7)
        #expect(try Self.orders(app, event: event).count == 2)
        // A new row for an order joins it, named by the organizer's id or by ours.
        let more = try Self.upload(app, event: event, csv: """
            attendeeName,orderId\r
            Late Larry,ORD-1\r
            Later Lou,\(try #require(second["orderId"] as? String))\r
            """)
        #expect(more.status == 200 && more.jsonObject?["created"] as? Int == 2, "\(more.text)")
        let grown = try Self.orders(app, event: event)
        #expect(grown.count == 2 && grown["ORD-1"]?["ticketCount"] as? Int == 3 && grown["ORD-2"]?["ticketCount"] as? Int == 4)
    }

    @Test("an order's rows may not disagree about its buyer, and a buyer needs an order: nothing is issued; an order without a buyer is made", arguments: Backend.allCases)
    func refusals(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let conflicting = try Self.upload(app, event: event, csv: """
            attendeeName,orderId,buyerEmail,buyerName\r
            A,O1,one@example.com,One\r
            B,O1,two@example.com,\r
            C,,three@example.com,\r
            D,O2,,\r
            E,O3,not-an-address,\r
            """)
        #expect(conflicting.status == 400)
        let problems = try #require((conflicting.jsonObject?["error"] as? [String: Any])?["problems"] as? [[String: Any]])
        let found = problems.map { "\($0["row"] as? Int ?? 0) \($0["field"] as? String ?? "")" }
        #expect(found == ["3 buyerEmail", "4 buyerEmail", "6 buyerEmail"], "\(problems)")
        let list = try app.admin("GET", "/admin/v1/events/\(event)/tickets").jsonObject?["tickets"] as? [[String: Any]]
        #expect(list?.isEmpty == true, "nothing was issued")
        #expect(try Self.orders(app, event: event).isEmpty)
        // An order no row gives a buyer for is made, without one (it is never emailed).
        let buyerless = try Self.upload(app, event: event, csv: "attendeeName,orderId\r\nA,O9\r\nB,\r\n")
        #expect(buyerless.status == 200, "\(buyerless.text)")
        let made = try Self.orders(app, event: event)
        #expect(made.count == 1 && made["O9"]?["ticketCount"] as? Int == 1 && made["O9"]?["buyerEmail"] == nil)
        // The single ticket route takes no order.
        let single = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"A","orderId":"O1"}"#)
        #expect(single.status == 400 && single.text.contains("orderId: unknown field"), "\(single.text)")
    }

    @Test("the export writes each ticket's order and buyer; it imports again as the same orders, and into its own event as nothing", arguments: Backend.allCases)
    func exportRoundTrip(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        try #require(try Self.upload(app, event: event, csv: Self.csv).status == 200)
        // And an order made by one call, without an external id of the organizer's.
        let made = try OrderSupport.createOrder(app, event: event, count: 2, buyer: "api@example.com", buyerName: "Api Buyer", namePrefix: "Api")
        let madeID = try #require(made["orderId"] as? String)

        let exported = try app.admin("GET", "/admin/v1/events/\(event)/tickets.csv")
        #expect(exported.status == 200)
        let records = try CSV.records(Array(exported.body.dropFirst(3))).map(\.fields)
        let header = try #require(records.first)
        let rows = records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
        let ada = try #require(rows.first { $0["attendeeName"] == "Ada Lovelace" })
        #expect(ada["orderId"] == "ORD-1" && ada["buyerEmail"] == "charles@example.com" && ada["buyerName"] == "Charles Babbage")
        let annabella = try #require(rows.first { $0["attendeeName"] == "Annabella Milbanke" })
        #expect(annabella["orderId"] == "ORD-1" && annabella["buyerEmail"] == "charles@example.com", "every row of an order names it and its buyer")
        let alan = try #require(rows.first { $0["attendeeName"] == "Alan Turing" })
        #expect(alan["orderId"] == "" && alan["buyerEmail"] == "")
        let api = rows.filter { $0["attendeeName"]?.hasPrefix("Api") == true }
        #expect(api.count == 2 && api.allSatisfy { CSV.removingFormulaGuard($0["orderId"] ?? "") == madeID && $0["buyerEmail"] == "api@example.com" })

        // Into its own event: nothing new, no new order (the API's order is named by its id).
        let own = try app.request("POST", "/admin/v1/events/\(event)/tickets:batch", headers: [
            ("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "text/csv"),
        ], body: exported.body)
        #expect(own.status == 200, "\(own.text)")
        // The API's tickets had no externalId: they are issued again, into their own order.
        #expect(own.jsonObject?["created"] as? Int == 2)
        let ownOrders = try Self.orders(app, event: event)
        #expect(ownOrders.count == 3 && ownOrders[madeID]?["ticketCount"] as? Int == 4)

        // Into another event: the same orders, with the same buyers and tickets.
        let other = try app.createEvent(name: "Encore")
        let copied = try app.request("POST", "/admin/v1/events/\(other)/tickets:batch", headers: [
            ("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "text/csv"),
        ], body: exported.body)
        #expect(copied.status == 200 && copied.jsonObject?["created"] as? Int == 9, "\(copied.text)")
        let orders = try Self.orders(app, event: other)
        #expect(orders.count == 3)
        #expect(orders["ORD-1"]?["ticketCount"] as? Int == 2 && orders["ORD-1"]?["buyerName"] as? String == "Charles Babbage")
        #expect(orders["ORD-2"]?["ticketCount"] as? Int == 3 && orders["ORD-2"]?["buyerEmail"] as? String == "grace@example.com")
        #expect(orders[madeID]?["ticketCount"] as? Int == 2 && orders[madeID]?["buyerEmail"] as? String == "api@example.com")
        #expect(orders[madeID]?["orderId"] as? String != madeID, "a new order of the other event, named by the exported id")
    }

    @Test("the JSON batch takes orderId, buyerEmail and buyerName per row, like the CSV", arguments: Backend.allCases)
    func jsonBatch(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let body = """
            [{"attendeeName":"A","externalId":"J-1","orderId":"W-7","buyerEmail":"w@example.com","buyerName":"Wanda"},
             {"attendeeName":"B","externalId":"J-2","orderId":"W-7"},
             {"attendeeName":"C","externalId":"J-3"}]
            """
        let response = try app.admin("POST", "/admin/v1/events/\(event)/tickets:batch", json: body)
        try #require(response.status == 200, "\(response.text)")
        let orders = try Self.orders(app, event: event)
        #expect(orders.count == 1 && orders["W-7"]?["ticketCount"] as? Int == 2 && orders["W-7"]?["buyerName"] as? String == "Wanda")
        #expect(try app.admin("POST", "/admin/v1/events/\(event)/tickets:batch", json: body).jsonObject?["created"] as? Int == 0)
        #expect(try Self.orders(app, event: event).count == 1)
        let refused = try app.admin("POST", "/admin/v1/events/\(event)/tickets:batch", json: #"[{"attendeeName":"D","orderId":5}]"#)
        let problems = (refused.jsonObject?["error"] as? [String: Any])?["problems"] as? [[String: Any]]
        #expect(refused.status == 400 && problems?.first?["field"] as? String == "orderId", "\(refused.text)")
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// `GET /admin/v1/events` over real HTTP: order, paging, filters and each event's counts.
@Suite("Admin API: events list", .offCooperativePool, .timeLimit(.minutes(4)))
struct EventListTests {
    /// Every event the list gives, following `nextCursor` with pages of `limit`.
    static func all(_ app: TestApp, query: String = "", limit: Int = 2, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        try OrganizerSupport.allPages(app, "/admin/v1/events", key: "events", query: query, limit: limit, sourceLocation: sourceLocation)
    }

    static func names(_ events: [[String: Any]]) -> [String] { events.map { $0["name"] as? String ?? "?" } }

    @Test("newest first by start time then id, paged without duplicates or gaps, filtered by q, from, to and archived", arguments: Backend.allCases)
    func orderPagingAndFilters(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        var ids: [String: String] = [:]
        let plan: [(String, String, String)] = [
            ("Spring Gala", "Tokyo Hall", "2027-04-01T19:00:00+09:00"),
            ("Summer Fest", "Osaka Dome", "2027-07-01T10:00:00Z"),
            ("Twin A", "Théâtre Royal", "2027-05-05T12:00:00Z"),
            ("Twin B", "Hall", "2027-05-05T21:00:00+09:00"),
            ("Twin C", "Hall", "2027-05-05T12:00:00Z"),
            ("Winter Night", "Sapporo", "2026-12-20T18:00:00Z"),
        ]
        for (name, venue, start) in plan { ids[name] = try OrganizerSupport.createEvent(app, name: name, venue: venue, startsAt: start) }
        // Twins A, B and C start at the same instant: the id decides, ascending.
        let twins = ["Twin A", "Twin B", "Twin C"].sorted { ids[$0]! < ids[$1]! }
        let expected = ["Summer Fest"] + twins + ["Spring Gala", "Winter Night"]
        #expect(Self.names(try Self.all(app, limit: 100)) == expected)
        for limit in [1, 2, 4] { #expect(Self.names(try Self.all(app, limit: limit)) == expected, "pages of \(limit)") }

        #expect(Self.names(try Self.all(app, query: "q=TWIN")) == twins)
        #expect(Self.names(try Self.all(app, query: "q=th%C3%A9%C3%A2tre")) == ["Twin A"], "venue, case-insensitively")
        #expect(Self.names(try Self.all(app, query: "q=hall")).sorted() == ["Spring Gala", "Twin B", "Twin C"])
        #expect(Self.names(try Self.all(app, query: "from=2027-05-05T12:00:00Z&to=2027-07-01T10:00:00Z")) == twins, "from inclusive, to exclusive")
        #expect(Self.names(try Self.all(app, query: "from=2027-01-01T00:00:00%2B09:00")) == ["Summer Fest"] + twins + ["Spring Gala"])
        #expect(Self.names(try Self.all(app, query: "to=2027-01-01T00:00:00Z")) == ["Winter Night"])

        let archived = try app.admin("POST", "/admin/v1/events/\(ids["Winter Night"]!)/archive")
        #expect(archived.status == 200)
        #expect(archived.jsonObject?["archived"] as? Bool == true)
        #expect(archived.jsonObject?["archivedAt"] is String)
        #expect(Self.names(try Self.all(app, query: "archived=true")) == ["Winter Night"])
        #expect(Self.names(try Self.all(app, query: "archived=false")) == Array(expected.dropLast()))
        let shown = try app.admin("GET", "/admin/v1/events/\(ids["Winter Night"]!)").jsonObject
        #expect(shown?["archived"] as? Bool == true)
        let again = try app.admin("POST", "/admin/v1/events/\(ids["Winter Night"]!)/archive", json: "{}")
        #expect(again.jsonObject?["archivedAt"] as? String == archived.jsonObject?["archivedAt"] as? String, "archiving twice keeps the first time")
        let restored = try app.admin("POST", "/admin/v1/events/\(ids["Winter Night"]!)/unarchive")
        #expect(restored.jsonObject?["archived"] as? Bool == false)
        #expect(restored.jsonObject?["archivedAt"] == nil)
        #expect(try app.admin("POST", "/admin/v1/events/missing/archive").status == 404)
        #expect(try app.admin("POST", "/admin/v1/events/\(ids["Winter Night"]!)/archive", json: #"{"reason":"x"}"#).status == 400)

        for (query, field) in [("cursor=nope", "cursor"), ("limit=101", "limit"), ("from=tomorrow", "from"), ("archived=yes", "archived")] {
            let response = try app.admin("GET", "/admin/v1/events?\(query)")
            #expect(response.status == 400)
            #expect((OrganizerSupport.error(response)?["message"] as? String)?.hasPrefix("\(field): ") == true, "\(response.text)")
        }
    }

    @Test("an event created between two pages appears in neither if it sorts before the cursor, never twice", arguments: Backend.allCases)
    func insertsWhilePaging(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        for day in 1...5 { _ = try OrganizerSupport.createEvent(app, name: "Day \(day)", startsAt: "2027-06-0\(day)T10:00:00Z") }
        let first = try #require(try app.admin("GET", "/admin/v1/events?limit=2").jsonObject)
        #expect(Self.names(first["events"] as? [[String: Any]] ?? []) == ["Day 5", "Day 4"])
        _ = try OrganizerSupport.createEvent(app, name: "Day 9", startsAt: "2027-06-09T10:00:00Z")
        _ = try OrganizerSupport.createEvent(app, name: "Day 3b", startsAt: "2027-06-03T12:00:00Z")
        let cursor = try #require(first["nextCursor"] as? String)
        var rest: [String] = []
        var next: String? = cursor
        var pages = 0
        while let current = next {
            // Bounded: a cursor that never ends fails here instead of looping.
            pages += 1
            try #require(pages <= 10, "still paging after 10 pages: \(rest)")
            let page = try #require(try app.admin("GET", "/admin/v1/events?limit=2&cursor=\(current)").jsonObject)
            rest += Self.names(page["events"] as? [[String: Any]] ?? [])
            next = page["nextCursor"] as? String
        }
        #expect(rest == ["Day 3b", "Day 3", "Day 2", "Day 1"])
    }

    @Test("each event's counts and reach are correct, read for the page at once", arguments: Backend.allCases)
    func counts(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let big = try OrganizerSupport.createEvent(app, name: "Big", startsAt: "2027-06-02T10:00:00Z")
        let small = try OrganizerSupport.createEvent(app, name: "Small", startsAt: "2027-06-01T10:00:00Z")
        let empty = try OrganizerSupport.createEvent(app, name: "Empty", startsAt: "2027-05-01T10:00:00Z")
        let rows = (0..<7).map { ["attendeeName": "Guest \($0)"] }
        let imported = try OrganizerSupport.upload(app, event: big, body: Array(try JSONSerialization.data(withJSONObject: rows)), contentType: "application/json")
        #expect(imported.status == 200, "\(imported.text.prefix(500))")
        let serials = (imported.jsonObject?["tickets"] as? [[String: Any]] ?? []).map { $0["serialNumber"] as? String ?? "" }
        try #require(serials.count == 7)
        for serial in serials.prefix(3) { #expect(try app.admin("POST", "/admin/v1/tickets/\(serial)/cancel", json: "{}").status == 200) }
        let phone = Phone(app: app)
        #expect(try phone.register(serials[4]).status == 201)
        #expect(try phone.register(serials[5]).status == 201)
        #expect(try Phone(app: app).register(serials[6]).status == 201)
        _ = try app.issueTicket(event: small)

        let events = try Self.all(app, limit: 100)
        let counts = Dictionary(uniqueKeysWithValues: events.map { ($0["id"] as? String ?? "", $0["counts"] as? [String: Any] ?? [:]) })
        #expect(counts[big]?["tickets"] as? Int == 7)
        #expect(counts[big]?["active"] as? Int == 4)
        #expect(counts[big]?["cancelled"] as? Int == 3)
        #expect(counts[big]?["registeredDevices"] as? Int == 2)
        #expect(counts[small]?["tickets"] as? Int == 1)
        #expect(counts[small]?["cancelled"] as? Int == 0)
        #expect(counts[empty]?["tickets"] as? Int == 0)
        #expect(counts[empty]?["registeredDevices"] as? Int == 0)
        let shown = try app.admin("GET", "/admin/v1/events/\(big)").jsonObject
        let single = shown?["counts"] as? [String: Any]
        #expect(single?["tickets"] as? Int == 7)
        #expect(single?["cancelled"] as? Int == 3)

        // Reach too, for every event of the page, as the event itself shows it.
        let reach = Dictionary(uniqueKeysWithValues: events.map { ($0["id"] as? String ?? "", $0["reach"] as? [String: Int] ?? [:]) })
        #expect(reach[big] == shown?["reach"] as? [String: Int])
        #expect(reach[big]?["devices"] == 3, "three registrations")
        #expect(reach[big]?["devicesUpToDate"] == 0, "no phone has asked yet")
        #expect(reach[empty] == ["devices": 0, "devicesUpToDate": 0, "pushesPending": 0, "pushesFailed": 0, "pushesDelivered": 0])
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The ticket list's filters over real HTTP, each against a set whose answer is known exactly.
@Suite("Admin API: ticket search and filters", .offCooperativePool, .timeLimit(.minutes(4)))
struct TicketSearchTests {
    /// The attendee names of every ticket the list gives, following `nextCursor` with pages of `limit`.
    static func all(_ app: TestApp, event: String, query: String, limit: Int = 2, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try OrganizerSupport.allPages(app, "/admin/v1/events/\(event)/tickets", key: "tickets", query: query, limit: limit, sourceLocation: sourceLocation)
            .map { $0["attendeeName"] as? String ?? "?" }
    }

    @Test("status, q, updatedSince and their combinations return exactly the matching tickets, paged without gaps", arguments: Backend.allCases)
    func filters(backend: Backend) async throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let event = try OrganizerSupport.createEvent(app)
        let other = try OrganizerSupport.createEvent(app, name: "Other")
        let rows: [(String, String?, String)] = [
            ("Alice Smith", "alice@example.com", "ORD-001"),
            ("alice jones", nil, "ORD-002"),
            ("Bob ALICEson", "bob@example.org", "X-17"),
            ("Émile Zola", "emile@example.fr", "ORD-003"),
            ("山田 太郎", "taro@example.jp", "JP-1"),
            ("Carol 100%", "carol@example.com", "P_1"),
            ("Dave", "dave@example.com", "ORD-010"),
            ("Eve", nil, "X-18"),
        ]
        let batch = rows.map { name, email, external in
            var row: [String: Any] = ["attendeeName": name, "externalId": external]
            row["attendeeEmail"] = email
            return row
        }
        let imported = try OrganizerSupport.upload(app, event: event, body: Array(try JSONSerialization.data(withJSONObject: batch)), contentType: "application/json")
        #expect(imported.status == 200)
        let serials = try #require(imported.jsonObject?["tickets"] as? [[String: Any]]).map { $0["serialNumber"] as? String ?? "" }
        try #require(serials.count == rows.count)
        _ = try app.admin("POST", "/admin/v1/events/\(other)/tickets", json: #"{"attendeeName":"Alice Elsewhere"}"#)

        #expect(try Self.all(app, event: event, query: "") == rows.map(\.0), "no filter: every ticket, in issue order")
        #expect(try Self.all(app, event: event, query: "q=ALICE") == ["Alice Smith", "alice jones", "Bob ALICEson"])
        #expect(try Self.all(app, event: event, query: "q=%C3%A9mile") == ["Émile Zola"], "é matches É")
        #expect(try Self.all(app, event: event, query: "q=example.com") == ["Alice Smith", "Carol 100%", "Dave"])
        #expect(try Self.all(app, event: event, query: "q=ord-00") == ["Alice Smith", "alice jones", "Émile Zola"])
        #expect(try Self.all(app, event: event, query: "q=%E5%B1%B1%E7%94%B0") == ["山田 太郎"])
        #expect(try Self.all(app, event: event, query: "q=100%25") == ["Carol 100%"], "% is not a wildcard")
        #expect(try Self.all(app, event: event, query: "q=p_1") == ["Carol 100%"])
        #expect(try Self.all(app, event: event, query: "q=\(serials[6].uppercased())") == ["Dave"], "serial numbers, case-insensitively")
        #expect(try Self.all(app, event: event, query: "q=nobody") == [])

        // Cancel two, then (a whole second later) rename two: updatedSince sees exactly the later changes.
        for index in [1, 6] {
            #expect(try app.admin("POST", "/admin/v1/tickets/\(serials[index])/cancel", json: "{}").status == 200)
        }
        let since = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1.05).rounded(.up))
        while Date() < since { await AdminSupport.pause(0.1) }
        for (index, name) in [(0, "Alice Smythe"), (4, "山田 花子")] {
            #expect(try app.admin("PATCH", "/admin/v1/tickets/\(serials[index])", json: #"{"attendeeName":"\#(name)"}"#).status == 200)
        }
        let stamp = ISODate.format(since)
        #expect(try Self.all(app, event: event, query: "status=cancelled") == ["alice jones", "Dave"])
        #expect(try Self.all(app, event: event, query: "status=active").count == 6)
        #expect(try Self.all(app, event: event, query: "updatedSince=\(stamp)") == ["Alice Smythe", "山田 花子"])
        let offsetStamp = ISODate.format(since, timeZone: "Asia/Tokyo")
        #expect(offsetStamp.contains("+09:00"))
        #expect(try Self.all(app, event: event, query: "updatedSince=\(offsetStamp.replacingOccurrences(of: "+", with: "%2B"))") == ["Alice Smythe", "山田 花子"])
        #expect(try Self.all(app, event: event, query: "updatedSince=\(offsetStamp)") == ["Alice Smythe", "山田 花子"], "an unencoded + arrives as a space")
        #expect(try Self.all(app, event: event, query: "status=active&q=alice") == ["Alice Smythe", "Bob ALICEson"])
        #expect(try Self.all(app, event: event, query: "status=active&q=alice&updatedSince=\(stamp)", limit: 1) == ["Alice Smythe"])
        #expect(try Self.all(app, event: event, query: "q=a", limit: 1) == (try Self.all(app, event: event, query: "q=a", limit: 500)))
    }

    @Test("invalid filter values are 400 naming the parameter", arguments: Backend.allCases)
    func invalidValues(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        for (query, field) in [
            ("status=void", "status"), ("limit=0", "limit"), ("limit=501", "limit"), ("cursor=abc", "cursor"),
            ("updatedSince=yesterday", "updatedSince"), ("q=\(String(repeating: "x", count: 201))", "q"), ("q=a%0Ab", "q"),
        ] {
            let response = try app.admin("GET", "/admin/v1/events/\(event)/tickets?\(query)")
            #expect(response.status == 400, "\(query)")
            #expect(response.errorCode == "invalid_fields")
            #expect((OrganizerSupport.error(response)?["message"] as? String)?.hasPrefix("\(field): ") == true, "\(query): \(response.text)")
        }
    }

    @Test("every admin route refuses a query parameter it does not take, naming it", arguments: Backend.allCases)
    func unknownParameterOnEveryRoute(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let job = try #require(try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Elsewhere"}"#).jsonObject?["job"] as? [String: Any])
        let jobID = try #require(job["id"] as? String)
        let values = ["eventId": event, "serialNumber": serial, "jobId": jobID]
        // The job's progress would change what is compared below: it is finished first.
        try await eventually("the job done") { (try? app.admin("GET", "/admin/v1/jobs/\(jobID)").jsonObject?["state"] as? String) == "done" }
        let routes = app.application.routes.filter { $0.pattern.hasPrefix("/admin/v1/") }
        #expect(routes.count >= 13)
        // What the refused writes would have changed: the ticket, the event, its jobs, the events.
        func state() throws -> [String] {
            try ["/admin/v1/tickets/\(serial)", "/admin/v1/events/\(event)"].map { target in
                let response = try app.admin("GET", target)
                let object = try #require(response.jsonObject, "\(target): \(response.status) \(response.text)")
                return String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
            } + [
                "jobs=\(try app.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 100) }.count)",
                "events=\(try app.store.execute("SELECT count(*) AS n FROM events").first?.int("n") ?? -1)",
            ]
        }
        let before = try state()
        for route in routes {
            let path = route.pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                segment.hasPrefix(":") ? values[String(segment.dropFirst())] ?? "x" : String(segment)
            }.joined(separator: "/")
            let response = try app.admin(route.method, path + "?colour=1")
            #expect(response.status == 400, "\(route.method) \(route.pattern)")
            #expect(response.errorCode == "unknown_query_parameter", "\(route.method) \(route.pattern)")
            #expect((OrganizerSupport.error(response)?["message"] as? String)?.contains("'colour'") == true)
        }
        let after = try state()
        #expect(after == before, "nothing changed: \(zip(before, after).filter { $0 != $1 })")
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// Unknown ids, input validation, pagination and the counts organizers watch.
@Suite("Admin API: resources, validation, pagination, counts", .offCooperativePool, .timeLimit(.minutes(4)))
struct AdminResourceTests {
    @Test("unknown ids answer 404 JSON", arguments: Backend.allCases)
    func unknownIDs(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let requests: [(String, String, String?)] = [
            ("GET", "/admin/v1/events/nope", nil),
            ("PATCH", "/admin/v1/events/nope", #"{"venue":"X"}"#),
            ("POST", "/admin/v1/events/nope/tickets", #"{"attendeeName":"X"}"#),
            ("GET", "/admin/v1/events/nope/tickets", nil),
            ("GET", "/admin/v1/events/bad%20id", nil),
            ("GET", "/admin/v1/tickets/nope", nil),
            ("PATCH", "/admin/v1/tickets/nope", #"{"seat":"B2"}"#),
            ("POST", "/admin/v1/tickets/nope/cancel", nil),
            ("GET", "/admin/v1/jobs/nope", nil),
        ]
        for (method, path, body) in requests {
            let response = try app.admin(method, path, json: body)
            #expect(response.status == 404, "\(method) \(path): \(response.text)")
            #expect(response.errorCode == "not_found")
        }
        let download = try app.request("GET", "/download/" + String(repeating: "a", count: 40))
        #expect(download.status == 404)
        #expect(download.errorCode == "not_found")
    }

    @Test("invalid fields answer 400 naming every one", arguments: Backend.allCases)
    func invalidFields(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let response = try app.admin("POST", "/admin/v1/events", json: #"{"venue":"Hall","startsAt":"next friday","colour":"red"}"#)
        #expect(response.status == 400)
        #expect(response.errorCode == "invalid_fields")
        let message = try #require(response.jsonObject.flatMap { ($0["error"] as? [String: Any])?["message"] as? String })
        for field in ["name:", "startsAt:", "colour:"] { #expect(message.contains(field), "\(message)") }
        #expect(!message.contains("venue"))

        let event = try app.createEvent()
        let cases: [(String, String, [String])] = [
            ("/admin/v1/events/\(event)", #"{"timeZone":"Mars/Olympus","endsAt":"2020-01-01T00:00:00Z","name":null}"#, ["timeZone:", "endsAt:", "name:"]),
            ("/admin/v1/events/\(event)/tickets", #"{"attendeeEmail":"not-an-email","seat":42}"#, ["attendeeName:", "attendeeEmail:", "seat:"]),
        ]
        for (path, body, fields) in cases {
            let method = path.hasSuffix("tickets") ? "POST" : "PATCH"
            let answer = try app.admin(method, path, json: body)
            #expect(answer.status == 400)
            let text = answer.text
            for field in fields { #expect(text.contains(field), "\(path): \(text)") }
        }
        #expect(try app.admin("POST", "/admin/v1/events", json: "[1,2").errorCode == "malformed_json")
        #expect(try app.admin("GET", "/admin/v1/events/\(event)/tickets?limit=0").status == 400)
        #expect(try app.admin("GET", "/admin/v1/events/\(event)/tickets?cursor=abc").status == 400)
    }

    @Test("ticket pages: 5 tickets by 2, no duplicates, none missing", arguments: Backend.allCases)
    func pagination(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let issued = try (0..<5).map { try app.issueTicket(event: event, attendee: "Guest \($0)") }
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let query = "limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try #require(try app.admin("GET", "/admin/v1/events/\(event)/tickets?\(query)").jsonObject)
            let tickets = try #require(page["tickets"] as? [[String: Any]])
            #expect(tickets.count <= 2)
            seen += tickets.compactMap { $0["serialNumber"] as? String }
            #expect(tickets.allSatisfy { ($0["downloadURL"] as? String)?.contains("/download/") == true })
            cursor = page["nextCursor"] as? String
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(seen == issued, "oldest first, each once")
    }

    @Test("event counts: tickets, voided, devices, pending and failed pushes", arguments: Backend.allCases)
    func counts(backend: Backend) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
        defer { app.stop(); fake.shutdown() }
        let event = try app.createEvent()
        let serials = try (0..<3).map { try app.issueTicket(event: event, attendee: "Guest \($0)") }
        let retrying = Phone(app: app)
        let failing = Phone(app: app)
        #expect(try retrying.register(serials[0]).status == 201)
        #expect(try failing.register(serials[1]).status == 201)
        #expect(try app.admin("POST", "/admin/v1/tickets/\(serials[2])/cancel").status == 200)
        // 429 keeps a push pending (retried with backoff); an unexpected status marks it failed.
        fake.script(token: retrying.pushToken, Array(repeating: .error(status: 429, reason: "TooManyRequests"), count: 20))
        fake.script(token: failing.pushToken, [.error(status: 404, reason: "NotFound")])
        #expect(try app.admin("PATCH", "/admin/v1/tickets/\(serials[0])", json: #"{"seat":"Z9"}"#).status == 200)
        #expect(try app.admin("PATCH", "/admin/v1/tickets/\(serials[1])", json: #"{"seat":"Z8"}"#).status == 200)

        var counts: [String: Any] = [:]
        try await eventually("one push failed and one retrying: \(counts), fake answered \(fake.pushes.map(\.status))") {
            counts = (try? app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["counts"] as? [String: Any]) ?? [:]
            return counts["failedPushes"] as? Int == 1 && fake.count(token: retrying.pushToken, status: 429) >= 1
        }
        #expect(counts["tickets"] as? Int == 3)
        #expect(counts["voided"] as? Int == 1)
        #expect(counts["registeredDevices"] as? Int == 2)
        #expect(counts["pendingPushes"] as? Int == 1)
        #expect(counts["failedPushes"] as? Int == 1)
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Input a pass cannot hold is refused with 400 at the door, and nothing of it is stored.
@Suite("Admin API: input the pass format cannot hold", .offCooperativePool, .timeLimit(.minutes(4)))
struct AdminInputLimitTests {
    /// What the store holds for an event: the fields a refused change must leave alone.
    private func snapshot(_ app: TestApp, event: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let stored = try #require(try app.store.withSession(.read) { try $0.events.event(id: event) }, sourceLocation: sourceLocation)
        let jobs = try app.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 100) }.count
        return "\(stored.name)|\(stored.venue)|\(stored.startsAt.timeIntervalSince1970)|\(String(describing: stored.endsAt))|\(stored.timeZone)|\(stored.revision)|jobs=\(jobs)"
    }

    /// How many events the store holds.
    private func eventCount(_ app: TestApp) throws -> Int {
        try app.store.execute("SELECT count(*) AS n FROM events").first?.int("n") ?? -1
    }

    /// Asserts a 400 `invalid_fields` naming `field`.
    private func expectRefused(
        _ response: TestResponse, naming field: String, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == 400, "\(comment): \(response.status) \(response.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(response.errorCode == "invalid_fields", "\(comment)", sourceLocation: sourceLocation)
        #expect(response.text.contains("\(field):"), "\(comment): \(response.text.prefix(300))", sourceLocation: sourceLocation)
    }

    private func eventJSON(startsAt: String, timeZone: String = "UTC") -> String {
        #"{"name":"Edge","venue":"Hall","startsAt":"\#(startsAt)","timeZone":"\#(timeZone)","confirmPastStart":true}"#
    }

    @Test("years 1969 and 10000 and offsets beyond ±18:00 get 400; nothing is stored", arguments: Backend.allCases)
    func outOfRangeDates(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let before = try snapshot(app, event: event)
        let refused = [
            "1969-12-31T23:59:59Z", "10000-01-01T00:00:00Z", "2027-03-01T19:00:00+18:01", "2027-03-01T19:00:00-18:01",
            "2027-02-30T19:00:00Z", "2027-03-01T24:00:00Z", "2100-02-29T10:00:00Z", "2027-03-01T19:00:00+0900",
            " 2027-03-01T19:00:00Z", "2027-03-01 19:00:00Z", "2027-03-01T19:00Z",
        ]
        for date in refused {
            expectRefused(try await app.adminOffPool("POST", "/admin/v1/events", json: eventJSON(startsAt: date)), naming: "startsAt", "create \(date)")
            expectRefused(try await app.adminOffPool("PATCH", "/admin/v1/events/\(event)", json: #"{"startsAt":"\#(date)"}"#), naming: "startsAt", "patch \(date)")
            expectRefused(try await app.adminOffPool("PATCH", "/admin/v1/events/\(event)", json: #"{"endsAt":"\#(date)"}"#), naming: "endsAt", "patch end \(date)")
        }
        #expect(try eventCount(app) == 1, "no refused event was created")
        #expect(try snapshot(app, event: event) == before, "the event is unchanged and no job was created")
        let shown = try await app.adminOffPool("GET", "/admin/v1/events/\(event)").jsonObject
        #expect(shown?["startsAt"] as? String == "2027-03-01T19:00:00+09:00")

        // The edges themselves are accepted.
        for date in ["1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2027-03-01T19:00:00+18:00", "2027-03-01T19:00:00-18:00",
                     "2028-02-29T10:00:00.123456Z", "2000-02-29T10:00:00Z"] {
            #expect(try await app.adminOffPool("POST", "/admin/v1/events", json: eventJSON(startsAt: date)).status == 201, "\(date)")
        }
    }

    @Test("a date inside 9999 that the event's time zone moves into year 10000 is refused before it is committed", arguments: Backend.allCases)
    func unbuildableInZone(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        // 9999-12-31T20:00-05:00 is 10000-01-01T01:00Z: a pass in UTC cannot show it.
        let late = "9999-12-31T20:00:00-05:00"
        let refused = try await app.adminOffPool("POST", "/admin/v1/events", json: eventJSON(startsAt: late))
        expectRefused(refused, naming: "pass", "UTC")
        #expect(refused.text.contains("relevantDate"), "\(refused.text)")
        #expect(try eventCount(app) == 0, "rolled back")
        #expect(try await app.adminOffPool("POST", "/admin/v1/events", json: eventJSON(startsAt: late, timeZone: "America/New_York")).status == 201)

        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let before = try snapshot(app, event: event)
        let revision = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") }).revision
        expectRefused(try await app.adminOffPool("PATCH", "/admin/v1/events/\(event)", json: #"{"startsAt":"\#(late)","timeZone":"UTC"}"#), naming: "pass", "patch")
        #expect(try snapshot(app, event: event) == before, "no change and no re-push job")
        #expect(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") }?.revision == revision)
        let download = try await app.requestOffPool("GET", try AdminSupport.path(of: try await app.adminOffPool("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String))
        #expect(download.status == 200, "the event's passes still build")
    }

    @Test("text limits count Unicode scalars: one character with 150,000 combining marks is refused", arguments: Backend.allCases)
    func combiningMarks(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event, attendee: "Ada Lovelace")
        let before = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") })
        let zalgo = "A" + String(repeating: "\u{0301}", count: 150_000)
        #expect(zalgo.count == 1, "one grapheme cluster")

        expectRefused(try await app.adminOffPool("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"\#(zalgo)"}"#), naming: "attendeeName", "issue")
        expectRefused(try await app.adminOffPool("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"\#(zalgo)"}"#), naming: "attendeeName", "rename")
        expectRefused(try await app.adminOffPool("PATCH", "/admin/v1/events/\(event)", json: #"{"name":"\#(zalgo)"}"#), naming: "name", "event name")
        let sevenSeats = "7" + String(repeating: "\u{0301}", count: 64)
        expectRefused(try await app.adminOffPool("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"seat":"\#(sevenSeats)"}"#), naming: "seat", "seat of 65 scalars")

        let after = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") })
        #expect(after == before, "the ticket is unchanged")
        #expect(try app.store.withSession(.read) { try $0.passes.passes(eventID: event, limit: 10) }.count == 1, "no ticket was issued")
        #expect(try await app.adminOffPool("GET", "/admin/v1/tickets/\(serial)").jsonObject?["attendeeName"] as? String == "Ada Lovelace")
        #expect(try app.store.withSession(.read) { try $0.events.event(id: event) }?.name == "Swift Night")

        // 200 scalars (100 decomposed "é") fit; 201 do not.
        let twoHundred = String(repeating: "e\u{0301}", count: 100)
        #expect(try await app.adminOffPool("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"\#(twoHundred)"}"#).status == 200)
        expectRefused(try await app.adminOffPool("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"\#(twoHundred)x"}"#), naming: "attendeeName", "201")
    }

    @Test("null where a string is required, a missing body and an empty limit are refused", arguments: Backend.allCases)
    func whatTheDocumentForbids(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let before = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") })
        let eventBefore = try snapshot(app, event: event)
        let cases: [(String, String, String, String)] = [
            ("POST", "/admin/v1/events", #"{"name":"N","venue":"V","startsAt":"2027-03-01T19:00:00Z","endsAt":null}"#, "endsAt"),
            ("POST", "/admin/v1/events", #"{"name":"N","venue":"V","startsAt":"2027-03-01T19:00:00Z","timeZone":null}"#, "timeZone"),
            ("POST", "/admin/v1/events", #"{"name":"N","venue":"V","startsAt":"2027-03-01T19:00:00Z","template":null}"#, "template"),
            ("POST", "/admin/v1/events", #"{"name":"N","venue":"V","startsAt":"2027-03-01T19:00:00Z","timeZone":" UTC"}"#, "timeZone"),
            ("POST", "/admin/v1/events", #"{"name":"N","venue":"V","startsAt":"2027-03-01T19:00:00Z","timeZone":"EST"}"#, "timeZone"),
            ("PATCH", "/admin/v1/events/\(event)", #"{"timeZone":null}"#, "timeZone"),
            ("PATCH", "/admin/v1/events/\(event)", #"{"startsAt":null}"#, "startsAt"),
            ("POST", "/admin/v1/events/\(event)/tickets", #"{"attendeeName":"N","seat":null}"#, "seat"),
            ("POST", "/admin/v1/events/\(event)/tickets", #"{"attendeeName":"N","attendeeEmail":null}"#, "attendeeEmail"),
            ("POST", "/admin/v1/events/\(event)/tickets", #"{"attendeeName":"N","attendeeEmail":" a@b.example"}"#, "attendeeEmail"),
            ("POST", "/admin/v1/events/\(event)/tickets", #"{"attendeeName":"\nN"}"#, "attendeeName"),
            ("POST", "/admin/v1/events/\(event)/tickets", #"{"attendeeName":" \u00a0 "}"#, "attendeeName"),
            ("PATCH", "/admin/v1/tickets/\(serial)", #"{"attendeeName":null}"#, "attendeeName"),
            ("POST", "/admin/v1/tickets/\(serial)/cancel", #"{"reason":null}"#, "reason"),
        ]
        for (method, path, body, field) in cases {
            expectRefused(try await app.adminOffPool(method, path, json: body), naming: field, "\(method) \(path) \(body)")
        }
        for (method, path) in [("PATCH", "/admin/v1/tickets/\(serial)"), ("PATCH", "/admin/v1/events/\(event)"), ("POST", "/admin/v1/events/\(event)/tickets")] {
            let response = try await app.adminOffPool(method, path, json: "")
            #expect(response.status == 400, "\(method) \(path) without a body: \(response.text)")
            #expect(response.errorCode == "malformed_json")
        }
        for query in ["limit=", "cursor=", "limit=+5", "limit=5.0", "cursor=-1", "limit=501"] {
            expectRefused(try await app.adminOffPool("GET", "/admin/v1/events/\(event)/tickets?\(query)"), naming: String(query.prefix { $0 != "=" }), query)
        }
        #expect(try eventCount(app) == 1)
        #expect(try app.store.withSession(.read) { try $0.passes.passes(eventID: event, limit: 10) }.count == 1)
        #expect(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") } == before)
        #expect(try snapshot(app, event: event) == eventBefore)
        // What the document allows still works: null clears seat and email, spaces are trimmed.
        let cleared = try await app.adminOffPool("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"seat":null,"attendeeEmail":null,"attendeeName":"  Grace Hopper "}"#)
        #expect(cleared.status == 200, "\(cleared.text)")
        #expect(cleared.jsonObject?["attendeeName"] as? String == "Grace Hopper")
        #expect(cleared.jsonObject?["seat"] == nil)
        #expect(try await app.adminOffPool("POST", "/admin/v1/tickets/\(serial)/cancel", json: "").status == 200, "cancel's body is optional")
    }

    @Test("a template whose pass would be invalid: the change is refused and nothing is stored", arguments: Backend.allCases)
    func templateRenderedInvalid(backend: Backend) async throws {
        // A template that paints the venue as the background colour: only venues like
        // rgb(1, 2, 3) make a valid pass, whatever the input rules let through.
        let directory = try TestCertificates.temporaryDirectory(prefix: "colour-templates")
        let source = PassServerExecutable.packageRoot.appendingPathComponent("Passes/event-ticket").path
        try FileManager.default.copyItem(atPath: source, toPath: directory + "/venue-colour")
        let passJSON = directory + "/venue-colour/pass.json"
        let original = try String(contentsOfFile: passJSON, encoding: .utf8)
        try original.replacingOccurrences(of: #""backgroundColor": "rgb(28, 36, 64)""#, with: #""backgroundColor": "{{venue}}""#)
            .write(toFile: passJSON, atomically: true, encoding: .utf8)
        let app = try await TestApp.startOffPool(backend) { $0.passesDirectory = directory }
        defer { app.stop() }
        let body = { (venue: String) in #"{"name":"N","venue":"\#(venue)","startsAt":"2027-03-01T19:00:00Z","template":"venue-colour"}"# }
        let refused = try await app.adminOffPool("POST", "/admin/v1/events", json: body("Hall"))
        expectRefused(refused, naming: "pass", "venue Hall")
        #expect(refused.text.contains("backgroundColor"))
        #expect(try eventCount(app) == 0)

        let created = try await app.adminOffPool("POST", "/admin/v1/events", json: body("rgb(1, 2, 3)"))
        #expect(created.status == 201, "\(created.text)")
        let event = try #require(created.jsonObject?["id"] as? String)
        let serial = try app.issueTicket(event: event)
        let before = try snapshot(app, event: event)
        expectRefused(try await app.adminOffPool("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Hall"}"#), naming: "pass", "patch venue")
        #expect(try snapshot(app, event: event) == before, "no change and no re-push job")
        #expect(try await app.adminOffPool("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"rgb(4, 5, 6)"}"#).status == 200)
        #expect(try await app.adminOffPool("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"Grace"}"#).status == 200)
    }
}


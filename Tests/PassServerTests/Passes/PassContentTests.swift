import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// What a served pass says: expiry after the event, the cancellation on its back, the organization.
@Suite("Pass content: expiry, cancellation, organization name", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct PassContentTests {
    /// Creates an event with `fields` (JSON members) and a ticket; returns the ticket's serial.
    static func ticket(_ app: TestApp, event fields: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let created = try app.admin("POST", "/admin/v1/events", json: #"{"name":"Swift Night","venue":"Tokyo Hall",\#(fields)}"#)
        let event = try #require(created.jsonObject?["id"] as? String, "\(created.text)", sourceLocation: sourceLocation)
        return try app.issueTicket(event: event)
    }

    static func passJSON(_ app: TestApp, serial: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let fetched = try Phone(app: app).fetch(serial)
        #expect(fetched.status == 200, sourceLocation: sourceLocation)
        return try PassArchive.passJSON(fetched.body)
    }

    @Test("expirationDate is a day after endsAt, in the event's zone; relevantDate is the start", arguments: Backend.allCases)
    func expiresADayAfterTheEnd(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try Self.ticket(
            app, event: #""startsAt":"2027-03-01T19:00:00+09:00","endsAt":"2027-03-01T22:30:00+09:00","timeZone":"Asia/Tokyo""#
        )
        let pass = try Self.passJSON(app, serial: serial)
        #expect(pass["expirationDate"] as? String == "2027-03-02T22:30:00+09:00")
        #expect(pass["relevantDate"] as? String == "2027-03-01T19:00:00+09:00")
        #expect(pass["organizationName"] as? String == "Example Events")

        let open = try Self.ticket(app, event: #""startsAt":"2027-03-01T19:00:00+09:00","timeZone":"Asia/Tokyo""#)
        #expect(try Self.passJSON(app, serial: open)["expirationDate"] == nil, "an event without an end does not expire")
    }

    @Test("a cancelled pass shows the reason first on its back and has no relevantDate", arguments: Backend.allCases)
    func cancelledPass(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = #""startsAt":"2027-03-01T19:00:00+09:00","endsAt":"2027-03-01T22:00:00+09:00","timeZone":"Asia/Tokyo""#
        let serial = try Self.ticket(app, event: event)
        let before = try Self.passJSON(app, serial: serial)
        #expect(before["relevantDate"] != nil)
        let backBefore = try #require((before["eventTicket"] as? [String: Any])?["backFields"] as? [[String: Any]])
        #expect(!backBefore.contains { $0["key"] as? String == "cancellation" })

        #expect(try app.admin("POST", "/admin/v1/tickets/\(serial)/cancel", json: #"{"reason":"The hall is flooded"}"#).status == 200)
        let after = try Self.passJSON(app, serial: serial)
        #expect(after["voided"] as? Bool == true)
        #expect(after["relevantDate"] == nil)
        #expect(after["expirationDate"] as? String == "2027-03-02T22:00:00+09:00")
        let back = try #require((after["eventTicket"] as? [String: Any])?["backFields"] as? [[String: Any]])
        #expect(back.first?["key"] as? String == "cancellation")
        #expect(back.first?["label"] as? String == "CANCELLATION")
        #expect(back.first?["value"] as? String == "The hall is flooded")

        let withoutReason = try Self.ticket(app, event: event)
        #expect(try app.admin("POST", "/admin/v1/tickets/\(withoutReason)/cancel").status == 200)
        let bare = try #require((try Self.passJSON(app, serial: withoutReason)["eventTicket"] as? [String: Any])?["backFields"] as? [[String: Any]])
        #expect(bare.first?["value"] as? String == "CANCELLED_NO_REASON")
        // The texts the field uses exist in every language of the template.
        for language in ["en", "ja"] {
            let strings = try String(
                contentsOf: PassServerExecutable.packageRoot.appendingPathComponent("Passes/event-ticket/\(language).lproj/pass.strings"),
                encoding: .utf8
            )
            #expect(strings.contains(#""CANCELLATION" = "#) && strings.contains(#""CANCELLED_NO_REASON" = "#), "\(language)")
        }
    }

    @Test("serve exits 64 without ORGANIZATION_NAME outside development, naming it; with it, it serves")
    func organizationNameRequired() async throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "orgname")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try TestCertificates.make(in: directory)
        var environment = ServerProcess.environment(certificates: certificates, databaseURL: "sqlite://\(directory)/db.sqlite")
        environment["ORGANIZATION_NAME"] = nil
        let result = try PassServerExecutable.run(["serve"], environment: environment)
        #expect(result.status == 64)
        #expect(result.standardError.contains("ORGANIZATION_NAME: required"), "\(result.standardError)")

        environment["ORGANIZATION_NAME"] = "Example Events"
        let server = try ServerProcess(["serve"], environment: environment, directory: directory)
        defer { server.forceKill() }
        let port = try await server.port()
        #expect(try TestClient(port: port, timeout: 10).request("GET", "/healthz").status == 200)
        server.signal(SIGTERM)
        #expect(await server.waitForExit(timeout: 30) == 0)
    }
}

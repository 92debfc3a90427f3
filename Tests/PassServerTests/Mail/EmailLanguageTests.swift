import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// The email language of events and tickets: set, changed without touching the passes, carried
/// through the CSV export and import, and used by the email.
@Suite("Email languages", .offCooperativePool, .timeLimit(.minutes(3)))
struct EmailLanguageTests {
    @Test("events and tickets take a language; changing only it makes no re-push and no new revision", arguments: Backend.allCases)
    func changes(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let created = try app.admin("POST", "/admin/v1/events", json: #"{"name":"N","venue":"V","startsAt":"2027-03-01T19:00:00+09:00","language":"ja"}"#)
        #expect(created.status == 201 && created.jsonObject?["language"] as? String == "ja")
        let event = try #require(created.jsonObject?["id"] as? String)
        #expect(try app.createEvent().isEmpty == false)
        // A pass of the event, which a change of what the pass shows must re-push.
        _ = try app.issueTicket(event: event)
        let changed = try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"language":"en"}"#)
        #expect(changed.status == 200)
        #expect((changed.jsonObject?["event"] as? [String: Any])?["language"] as? String == "en")
        #expect(changed.jsonObject?["job"] == nil, "a language change re-pushes nothing")
        #expect(try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"language":"english"}"#).status == 400)

        let ticket = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"A","language":"pt-BR"}"#)
        #expect(ticket.jsonObject?["language"] as? String == "pt-BR")
        let serial = try #require(ticket.jsonObject?["serialNumber"] as? String)
        let revision = try #require(ticket.jsonObject?["revision"] as? Int)
        let relabelled = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"language":"ja"}"#)
        #expect(relabelled.status == 200 && relabelled.jsonObject?["language"] as? String == "ja")
        #expect(relabelled.jsonObject?["revision"] as? Int == revision, "the pass did not change")
        let cleared = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"language":null}"#)
        #expect(cleared.status == 200 && cleared.jsonObject?["language"] == nil)
        let renamed = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"B","language":"en"}"#)
        #expect((renamed.jsonObject?["revision"] as? Int ?? 0) > revision && renamed.jsonObject?["language"] as? String == "en")
        // Last (its job changes the passes): a venue change of the same event does answer its
        // re-push job, so the language change's check above can fail.
        let moved = try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Elsewhere"}"#)
        #expect(moved.status == 200)
        #expect((moved.jsonObject?["job"] as? [String: Any])?["id"] is String, "\(moved.text)")
    }

    @Test("the CSV export carries the language and the email state, and imports again", arguments: [Backend.sqlite])
    func csvRoundTrip(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let csv = "attendeeName,attendeeEmail,language,externalId\r\n山田 太郎,taro@example.com,ja,R1\r\n"
        let imported = try app.request(
            "POST", "/admin/v1/events/\(event)/tickets:batch",
            headers: [("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "text/csv")], body: Array(csv.utf8)
        )
        #expect(imported.status == 200, "\(imported.text)")
        let export = try app.admin("GET", "/admin/v1/events/\(event)/tickets.csv").text
        let lines = export.split(separator: "\r\n").map(String.init)
        #expect(lines.first?.hasSuffix("emailStatus,checkedInAt,checkInGate,checkInScanner") == true, "\(lines.first ?? "")")
        #expect(lines.first?.contains("externalId,language,") == true)
        #expect(lines.dropFirst().first?.contains(",R1,ja,") == true)
        let again = try app.request(
            "POST", "/admin/v1/events/\(event)/tickets:batch",
            headers: [("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "text/csv")], body: Array(export.utf8)
        )
        #expect(again.status == 200 && again.jsonObject?["existing"] as? Int == 1, "\(again.text)")
    }
}

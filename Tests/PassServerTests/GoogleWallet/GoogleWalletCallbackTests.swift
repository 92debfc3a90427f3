import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// `POST /google-wallet/callback` on both backends, with callbacks signed as Google signs them and
/// Google's keys served on 127.0.0.1: saves count once, deletions un-count, and everything forged,
/// expired or foreign is refused and counted in nothing.
@Suite("Google Wallet callbacks", .offCooperativePool, .timeLimit(.minutes(5)))
struct GoogleWalletCallbackTests {
    func errorCode(_ response: TestResponse) -> String? {
        (response.jsonObject?["error"] as? [String: Any])?["code"] as? String
    }

    @Test("a save counts once, its replay is ignored, a del un-counts; reach in the API and /metrics", arguments: Backend.allCases)
    func saveReplayDelete(_ backend: Backend) async throws {
        let fixture = try await GoogleWalletFixture.start(backend)
        defer { fixture.stop() }
        try await offPool {
            let event = try fixture.app.createEvent()
            let serial = try fixture.app.issueTicket(event: event)
            let other = try fixture.app.issueTicket(event: event, attendee: "Grace Hopper", seat: "A2")
            #expect(try fixture.eventSaved(event) == 0)
            #expect(try fixture.ticket(serial)?["saved"] as? Bool == false)

            let first = try fixture.post(event: event, serial: serial, nonce: "nonce-1")
            #expect(first.status == 200, "\(first.text)")
            #expect(first.jsonObject?["status"] as? String == "recorded")
            let replay = try fixture.post(event: event, serial: serial, nonce: "nonce-1")
            #expect(replay.status == 200)
            #expect(replay.jsonObject?["status"] as? String == "replayed")
            #expect(try fixture.post(event: event, serial: other, nonce: "nonce-2").status == 200)
            #expect(try fixture.eventSaved(event) == 2)
            let ticket = try #require(try fixture.ticket(serial))
            #expect(ticket["saved"] as? Bool == true)
            #expect(ticket["firstSavedAt"] is String && ticket["lastEventAt"] is String)

            // A second save of a saved ticket (a new delivery) changes no count.
            #expect(try fixture.post(event: event, serial: serial, nonce: "nonce-3").status == 200)
            #expect(try fixture.eventSaved(event) == 2)
            let deleted = try fixture.post(event: event, serial: other, type: "del", nonce: "nonce-4")
            #expect(deleted.status == 200)
            #expect(try fixture.eventSaved(event) == 1)
            #expect(try fixture.ticket(other)?["saved"] as? Bool == false)
            #expect(try fixture.ticket(other)?["firstSavedAt"] is String, "a deleted ticket keeps when it was first saved")

            let listed = try fixture.app.admin("GET", "/admin/v1/events").jsonObject?["events"] as? [[String: Any]]
            let row = try #require(listed?.first { $0["id"] as? String == event })
            #expect((row["reach"] as? [String: Any])?["googleWalletSaved"] as? Int == 1, "the events list counts them too")
            #expect(try fixture.metric("passserver_google_wallet_saved_tickets") == 1)
            #expect(try fixture.metric(#"passserver_google_wallet_callbacks_total{outcome="save"}"#) == 3)
            #expect(try fixture.metric(#"passserver_google_wallet_callbacks_total{outcome="replayed"}"#) == 1)
            #expect(try fixture.metric(#"passserver_google_wallet_callbacks_total{outcome="del"}"#) == 1)
            #expect(fixture.keys.fetches == 1, "the keys were fetched once and kept")
        }
    }

    @Test("bad signatures, an expired message or key, foreign ids and broken bodies: 4xx, nothing stored", arguments: Backend.allCases)
    func refusals(_ backend: Backend) async throws {
        let fixture = try await GoogleWalletFixture.start(backend)
        defer { fixture.stop() }
        try await offPool {
            let event = try fixture.app.createEvent()
            let serial = try fixture.app.issueTicket(event: event)
            let otherEvent = try fixture.app.createEvent(name: "Other Night")
            let cases: [(GoogleCallbackSigner.Flaw, Int, String)] = [
                (.messageSignedByStranger, 400, "bad_signature"), (.intermediateSignedByStranger, 400, "bad_signature"),
                (.otherRecipient, 400, "bad_signature"), (.expiredMessage, 400, "expired"), (.expiredIntermediate, 400, "key_expired"),
            ]
            for (flaw, status, code) in cases {
                let response = try fixture.post(event: event, serial: serial, nonce: "flawed-\(code)-\(flaw)", flaw: flaw)
                #expect(response.status == status && errorCode(response) == code, "\(flaw): \(response.status) \(response.text)")
            }
            let wrongClass = try fixture.post(try fixture.signer.callback(
                classID: "9999.e.\(event)", objectID: fixture.objectID(serial), eventType: "save"
            ))
            #expect(wrongClass.status == 404 && errorCode(wrongClass) == "unknown_class", "\(wrongClass.text)")
            let otherEventsTicket = try fixture.post(event: otherEvent, serial: serial)
            #expect(otherEventsTicket.status == 404 && errorCode(otherEventsTicket) == "unknown_object", "\(otherEventsTicket.text)")
            let noTicket = try fixture.post(event: event, serial: "NO-SUCH-TICKET")
            #expect(noTicket.status == 404 && errorCode(noTicket) == "unknown_object")
            let broken = try fixture.post(Array(#"{"protocolVersion":"ECv2SigningOnly"}"#.utf8))
            #expect(broken.status == 400 && errorCode(broken) == "malformed")
            let huge = try fixture.post([UInt8](repeating: 0x20, count: 64 << 10))
            #expect(huge.status == 413)

            #expect(try fixture.eventSaved(event) == 0)
            #expect(try fixture.eventSaved(otherEvent) == 0)
            #expect(try fixture.ticket(serial)?["lastEventAt"] == nil, "no refused callback left a trace on the ticket")
            let nonces = try fixture.app.store.withSession(.read) { try $0.execute("SELECT nonce FROM google_wallet_nonces") }
            #expect(nonces.isEmpty, "no refused callback's nonce was kept")

            // The same ticket's valid save is taken: the refusals above could have counted.
            #expect(try fixture.post(event: event, serial: serial).status == 200)
            #expect(try fixture.eventSaved(event) == 1)
            #expect(try fixture.metric(#"passserver_google_wallet_callbacks_total{outcome="bad_signature"}"#) == 3)
            #expect(try fixture.metric(#"passserver_google_wallet_callbacks_total{outcome="unknown_object"}"#) == 2)
            #expect(try fixture.metric("passserver_google_wallet_saved_tickets") == 1)
        }
    }

    @Test("Google rotates its keys: a key met within a minute of the last fetch is not fetched for", arguments: [Backend.sqlite])
    func rotation(_ backend: Backend) async throws {
        let fixture = try await GoogleWalletFixture.start(backend)
        defer { fixture.stop() }
        try await offPool {
            let event = try fixture.app.createEvent()
            let serial = try fixture.app.issueTicket(event: event)
            #expect(try fixture.post(event: event, serial: serial).status == 200)
            #expect(fixture.keys.fetches == 1)
            let rotated = try GoogleCallbackSigner(recipient: GoogleWalletFixture.issuer)
            fixture.keys.replace(try rotated.keysDocument())
            // Within the minute the new key is not fetched: refused, and Google's retry comes later.
            let body = try rotated.callback(classID: fixture.classID(event), objectID: fixture.objectID(serial), eventType: "del")
            let early = try fixture.post(body)
            #expect(early.status == 400 && errorCode(early) == "bad_signature")
            #expect(fixture.keys.fetches == 1)
        }
    }

    @Test("without Google Wallet configured the callback is 404 JSON and /metrics says nothing of it", arguments: Backend.allCases)
    func unconfigured(_ backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        try await offPool {
            let signer = try GoogleCallbackSigner(recipient: GoogleWalletFixture.issuer)
            let event = try app.createEvent()
            let serial = try app.issueTicket(event: event)
            let body = try signer.callback(classID: "\(GoogleWalletFixture.issuer).e.\(event)", objectID: "\(GoogleWalletFixture.issuer).t.\(serial)", eventType: "save")
            let response = try app.request("POST", "/google-wallet/callback", headers: [("Content-Type", "application/json")], body: body)
            #expect(response.status == 404)
            #expect(self.errorCode(response) == "not_found")
            #expect(response.headers.first { $0.0.lowercased() == "content-type" }?.1.hasPrefix("application/json") == true)
            let metrics = try app.request("GET", "/metrics").text
            #expect(metrics.contains("passserver_checked_in_tickets"), "the metrics were read")
            #expect(!metrics.contains("google_wallet"))
            let eventBody = try app.admin("GET", "/admin/v1/events/\(event)").jsonObject
            #expect((eventBody?["reach"] as? [String: Any])?["devices"] != nil)
            #expect((eventBody?["reach"] as? [String: Any])?["googleWalletSaved"] == nil)
            #expect(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["googleWallet"] == nil)
        }
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Every webhook type end to end, on both backends, through the paths that cause them: the admin
/// API (issue, rename, cancel, check-in, event edit and deletion), a phone's registration and
/// unregistration, the mail server refusing a ticket's email, and Google's signed save and delete
/// callbacks. Each arrives once at a local receiver, signed so that a verifier written from the
/// docs accepts it (and refuses it with another secret), its body carrying the ticket and event
/// as the admin API showed them when the change was made.
@Suite("Webhooks: every type", .offCooperativePool, .timeLimit(.minutes(5)))
struct WebhookEventTypeTests {
    @Test("each type once, signed, with the ticket and event as they were", arguments: Backend.allCases)
    func everyType(_ backend: Backend) async throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "webhook-types")
        let smtp = try TestSMTPServer(.init(refuse: ["bounce@example.com"]), certificates: try TestCertificates.make(in: directory), in: directory)
        defer { smtp.stop() }
        let smtpURL = smtp.url()
        let fixture = try await GoogleWalletFixture.start(backend) { configuration in
            WebhookTest.configure(&configuration)
            configuration.mail.smtpURL = smtpURL
            configuration.mail.allowPlaintext = true
            configuration.mail.from = MailFixture.from
            configuration.mail.rate = 500
        }
        defer { fixture.stop() }
        let app = fixture.app
        let receiver = try FakeWebhookReceiver()
        defer { receiver.shutdown() }
        let types = WebhookEventType.allCases.map(\.rawValue)
        let endpoint = try WebhookTest.register(app, url: receiver.url("all"), types: types)
        #expect((endpoint.body["eventTypes"] as? [String]).map(Set.init) == Set(types))
        #expect(endpoint.secret.hasPrefix("whsec_") && endpoint.secret.count > 40)

        let event = try app.createEvent(name: "Hook Night")
        let issued = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Ada Lovelace","attendeeEmail":"bounce@example.com","seat":"A1","notify":true}"#)
        try #require(issued.status == 201, "\(issued.text)")
        let issuedTicket = try #require(issued.jsonObject)
        let serial = try #require(issuedTicket["serialNumber"] as? String)
        #expect(try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"Ada King"}"#).status == 200)
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        #expect(try phone.unregister(serial).status == 200)
        let scanner = try Scanner(app)
        #expect(try scanner.scan(try scanner.code(serial), gate: "North").status == 200)
        #expect(try fixture.post(event: event, serial: serial, type: "save").status == 200)
        #expect(try fixture.post(event: event, serial: serial, type: "del").status == 200)
        let second = try app.issueTicket(event: event, attendee: "Grace Hopper", seat: "B2")
        #expect(try app.admin("POST", "/admin/v1/tickets/\(second)/cancel", json: #"{"reason":"refund"}"#).status == 200)
        #expect(try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Osaka Dome"}"#).status == 200)
        let gone = try app.createEvent(name: "Gone Night")
        #expect(try app.admin("DELETE", "/admin/v1/events/\(gone)?confirm=Gone%20Night").status == 202)

        var expected = Dictionary(uniqueKeysWithValues: types.map { ($0, 1) })
        expected["ticket.issued"] = 2
        let deliveries = try await WebhookTest.waitFor(receiver, "all", "a delivery of every type") { deliveries in
            Dictionary(grouping: deliveries.compactMap(\.type), by: { $0 }).mapValues(\.count) == expected
        }
        // Nothing more arrives (every answer was a 200: nothing is sent twice).
        try await Task.sleep(for: .milliseconds(500))
        #expect(receiver.deliveries("all").count == deliveries.count)

        var ids = Set<String>()
        var byType: [String: [String: Any]] = [:]
        for delivery in deliveries {
            #expect(WebhookTest.verifies(delivery, secret: endpoint.secret), "the signature of \(delivery.type ?? "?") verifies")
            #expect(!WebhookTest.verifies(delivery, secret: endpoint.secret + "x"), "another secret does not verify it")
            #expect(!WebhookTest.verifies(delivery, secret: endpoint.secret, now: Date().addingTimeInterval(600)), "a replay ten minutes later is refused")
            #expect(delivery.headers["content-type"] == "application/json")
            let body = try #require(delivery.json)
            #expect(body["id"] as? String == delivery.webhookID && body["type"] as? String == delivery.type)
            #expect((body["createdAt"] as? String).flatMap(ISODate.parse) != nil)
            ids.insert(try #require(delivery.webhookID))
            if let type = delivery.type, byType[type] == nil || (body["data"] as? [String: Any])?["ticket"].flatMap({ ($0 as? [String: Any])?["serialNumber"] as? String }) == serial {
                byType[type] = body["data"] as? [String: Any]
            }
        }
        #expect(ids.count == deliveries.count, "every webhook event has an id of its own")
        // The Python verifier printed in the docs, run as it is there, agrees.
        #expect(try WebhookTest.documentedVerifier(deliveries[0], secrets: [endpoint.secret, endpoint.secret + "x"]) == [true, false])

        func ticket(_ type: String) -> [String: Any]? { byType[type]?["ticket"] as? [String: Any] }
        // As the admin API showed the ticket when it was issued, the later rename not yet in it.
        let shown = try #require(ticket("ticket.issued"))
        #expect(shown["attendeeName"] as? String == "Ada Lovelace")
        for key in ["serialNumber", "passTypeIdentifier", "eventId", "attendeeName", "attendeeEmail", "seat", "status", "revision", "lastModified", "createdAt", "downloadURL"] {
            #expect(String(describing: shown[key] ?? "absent") == String(describing: issuedTicket[key] ?? "absent"), "ticket.issued's \(key) is the admin API's")
        }
        #expect((byType["ticket.issued"]?["event"] as? [String: Any])?["venue"] as? String == "Tokyo Hall")
        #expect(ticket("ticket.updated")?["attendeeName"] as? String == "Ada King")
        #expect(ticket("pass.added")?["serialNumber"] as? String == serial && ticket("pass.removed")?["serialNumber"] as? String == serial)
        let checkIn = try #require(byType["ticket.checked_in"]?["checkIn"] as? [String: Any])
        #expect(checkIn["gate"] as? String == "North" && ticket("ticket.checked_in")?["checkedInAt"] != nil)
        let email = try #require(byType["email.failed"]?["email"] as? [String: Any])
        #expect(email["status"] as? String == "failed" && (email["reply"] as? String)?.contains("550") == true)
        #expect((byType["googlewallet.saved"]?["googleWallet"] as? [String: Any])?["saved"] as? Bool == true)
        #expect((byType["googlewallet.removed"]?["googleWallet"] as? [String: Any])?["saved"] as? Bool == false)
        #expect(ticket("ticket.cancelled")?["status"] as? String == "cancelled" && ticket("ticket.cancelled")?["voidReason"] as? String == "refund")
        #expect(byType["event.updated"]?["ticket"] == nil && (byType["event.updated"]?["event"] as? [String: Any])?["venue"] as? String == "Osaka Dome")
        #expect((byType["event.deleted"]?["event"] as? [String: Any])?["id"] as? String == gone)

        // The delivery log shows each one delivered with the receiver's status.
        let log = try #require(try app.admin("GET", "/admin/v1/webhooks/\(endpoint.id)/deliveries?limit=50").jsonObject?["items"] as? [[String: Any]])
        #expect(log.count == deliveries.count)
        #expect(log.allSatisfy { $0["state"] as? String == "delivered" && $0["lastStatus"] as? Int == 200 && $0["attempts"] as? Int == 1 })
        let metrics = try app.request("GET", "/metrics").text
        #expect(metrics.contains("passserver_webhook_deliveries_total{outcome=\"delivered\"} \(deliveries.count)"))
        #expect(metrics.contains("passserver_webhook_endpoints{state=\"enabled\"} 1"))
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Webhook endpoints through the admin API: private, loopback and link-local targets refused
/// when registered and when sent to, unless WEBHOOK_ALLOW_PRIVATE_TARGETS; what is checked and
/// how it is refused; roles; the secret shown at creation and rotation only.
@Suite("Webhooks: endpoints", .offCooperativePool, .timeLimit(.minutes(4)))
struct WebhookEndpointTests {
    @Test("without the operator setting, 127.0.0.1 and other local targets are refused at registration", arguments: Backend.allCases)
    func refusedAtRegistration(_ backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let receiver = try FakeWebhookReceiver()
        defer { receiver.shutdown() }
        let refused = [
            receiver.url("x"), "https://127.0.0.1/hooks", "https://127.1.2.3:8443/h", "https://localhost/hooks", "https://[::1]/hooks",
            "https://[::ffff:127.0.0.1]/hooks", "https://[::ffff:10.0.0.1]/h", "https://10.1.2.3/h", "https://192.168.1.1/h", "https://172.16.0.1/h",
            "https://169.254.169.254/latest/meta-data", "https://[fe80::1]/h", "https://[fd00::1]/h", "https://0.0.0.0/h", "https://100.64.0.1/h",
            "https://[64:ff9b::7f00:1]/h", "https://2130706433/h", "https://user:pw@93.184.216.34/h", "ftp://93.184.216.34/h", "not a url",
        ]
        for url in refused {
            let response = try app.admin("POST", "/admin/v1/webhooks", json: #"{"url":"\#(url)","eventTypes":["ticket.issued"]}"#)
            #expect(response.status == 400, "\(url) was accepted: \(response.text)")
            #expect(response.text.contains("url:"), "\(url): \(response.text)")
        }
        let loopback = try app.admin("POST", "/admin/v1/webhooks", json: #"{"url":"https://127.0.0.1/hooks","eventTypes":["ticket.issued"]}"#)
        #expect(loopback.text.contains("loopback") && loopback.text.contains("WEBHOOK_ALLOW_PRIVATE_TARGETS"), "\(loopback.text)")
        #expect(try app.admin("GET", "/admin/v1/webhooks").jsonObject?["items"] as? [Any] == nil
            || (try app.admin("GET", "/admin/v1/webhooks").jsonObject?["items"] as? [Any])?.isEmpty == true)

        // The same receiver is accepted with the setting (the refusal was the address's).
        let allowing = try await TestApp.startOffPool(backend, configure: WebhookTest.configure)
        defer { allowing.stop() }
        _ = try WebhookTest.register(allowing, url: receiver.url("x"), types: ["ticket.issued"])
    }

    @Test("an endpoint at 127.0.0.1 is refused at send time once the setting is off: blocked, nothing received", arguments: Backend.allCases)
    func refusedAtSendTime(_ backend: Backend) async throws {
        let receiver = try FakeWebhookReceiver()
        defer { receiver.shutdown() }
        let first = try await TestApp.startOffPool(backend, configure: WebhookTest.configure)
        let endpoint = try WebhookTest.register(first, url: receiver.url("local"), types: ["ticket.issued"])
        let event = try first.createEvent()
        _ = try first.issueTicket(event: event, attendee: "Sent")
        // With the setting the receiver gets it: the refusal below is the setting's.
        try await WebhookTest.waitFor(receiver, "local", "the delivery allowed by the setting") { $0.count == 1 }
        let databaseURL = first.databaseURL
        let certificates = first.certificates
        await offPool { first.stop() }

        let second = try await offPool {
            try TestApp.start(backend, databaseURL: databaseURL, certificates: certificates) { configuration in
                WebhookTest.configure(&configuration)
                configuration.webhooks.allowPrivateTargets = false
            }
        }
        defer { second.stop() }
        _ = try second.issueTicket(event: event, attendee: "Refused")
        try await eventually("the second delivery failed as refused") {
            let items = try second.admin("GET", "/admin/v1/webhooks/\(endpoint.id)/deliveries").jsonObject?["items"] as? [[String: Any]]
            return items?.first?["state"] as? String == "failed"
        }
        let items = try #require(try second.admin("GET", "/admin/v1/webhooks/\(endpoint.id)/deliveries").jsonObject?["items"] as? [[String: Any]])
        let error = try #require(items.first?["lastError"] as? String)
        #expect(error.contains("127.0.0.1") && error.contains("loopback"), "\(error)")
        #expect(receiver.deliveries("local").count == 1, "nothing reached the receiver")
        #expect(try second.request("GET", "/metrics").text.contains("passserver_webhook_deliveries_total{outcome=\"blocked\"} 1"))
        // Enabling it again (here: changing it) checks the URL as a registration does.
        #expect(try second.admin("PATCH", "/admin/v1/webhooks/\(endpoint.id)", json: #"{"url":"\#(receiver.url("other"))"}"#).status == 400)
    }

    @Test("inputs are checked with every problem named; viewers read, admins change; the secret is shown only at creation and rotation", arguments: Backend.allCases)
    func api(_ backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend, configure: WebhookTest.configure)
        defer { app.stop() }
        let receiver = try FakeWebhookReceiver()
        defer { receiver.shutdown() }
        let bad = try app.admin("POST", "/admin/v1/webhooks", json: #"{"eventTypes":["ticket.issued","ticket.exploded","googlewallet.saved"],"colour":1}"#)
        #expect(bad.status == 400)
        for part in ["url: is required", "ticket.exploded", "googlewallet.saved needs Google Wallet", "colour: unknown field"] {
            #expect(bad.text.contains(part), "\(part) in \(bad.text)")
        }
        #expect(try app.admin("POST", "/admin/v1/webhooks", json: #"{"url":"\#(receiver.url("a"))","eventTypes":[]}"#).status == 400)
        #expect(try app.admin("POST", "/admin/v1/webhooks", json: #"{"url":"\#(receiver.url("a"))","eventTypes":"ticket.issued"}"#).status == 400)

        let created = try WebhookTest.register(app, url: receiver.url("a"), types: ["ticket.issued"], description: "Box office")
        #expect(created.body["description"] as? String == "Box office" && created.body["enabled"] as? Bool == true)
        let listed = try #require(try app.admin("GET", "/admin/v1/webhooks").jsonObject)
        #expect((listed["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [created.id])
        #expect((listed["items"] as? [[String: Any]])?.first?["secret"] == nil, "the list shows no secret")
        #expect((listed["eventTypes"] as? [String])?.contains("googlewallet.saved") == false, "Google's types only while Google Wallet is on")
        #expect(try app.admin("GET", "/admin/v1/webhooks/\(created.id)").jsonObject?["secret"] == nil)
        #expect(try app.admin("GET", "/admin/v1/webhooks/nope").status == 404)

        let viewer = try AdminRoleTests.token(app, role: .viewer)
        let asViewer: (String, String, String?) throws -> TestResponse = { method, path, body in
            try app.request(method, path, headers: [("Authorization", "Bearer \(viewer)"), ("Content-Type", "application/json")], body: Array((body ?? "").utf8))
        }
        #expect(try asViewer("GET", "/admin/v1/webhooks", nil).status == 200)
        #expect(try asViewer("GET", "/admin/v1/webhooks/\(created.id)/deliveries", nil).status == 200)
        #expect(try asViewer("POST", "/admin/v1/webhooks", #"{"url":"\#(receiver.url("v"))","eventTypes":["ticket.issued"]}"#).status == 403)
        #expect(try asViewer("PATCH", "/admin/v1/webhooks/\(created.id)", #"{"enabled":false}"#).status == 403)
        #expect(try asViewer("POST", "/admin/v1/webhooks/\(created.id)/secret", nil).status == 403)

        // A rotated secret signs the next delivery; the old one no longer does.
        let rotated = try #require(try app.admin("POST", "/admin/v1/webhooks/\(created.id)/secret").jsonObject)
        let secret = try #require(rotated["secret"] as? String)
        #expect(secret != created.secret && secret.hasPrefix("whsec_"))
        _ = try app.issueTicket(event: try app.createEvent(), attendee: "Ada")
        let delivery = try #require(try await WebhookTest.waitFor(receiver, "a", "the delivery after rotation") { $0.count == 1 }.first)
        #expect(WebhookTest.verifies(delivery, secret: secret) && !WebhookTest.verifies(delivery, secret: created.secret))

        let changed = try app.admin("PATCH", "/admin/v1/webhooks/\(created.id)", json: #"{"eventTypes":["ticket.cancelled","ticket.issued"],"description":"CRM"}"#)
        #expect(changed.status == 200 && changed.jsonObject?["eventTypes"] as? [String] == ["ticket.cancelled", "ticket.issued"])
        #expect(try app.admin("GET", "/admin/v1/webhooks/\(created.id)/deliveries?limit=0").status == 400)
        #expect(try app.admin("GET", "/admin/v1/webhooks/\(created.id)/deliveries?cursor=x").status == 400)
        #expect(try app.admin("DELETE", "/admin/v1/webhooks/\(created.id)").status == 204)
        #expect(try app.admin("GET", "/admin/v1/webhooks/\(created.id)").status == 404)
        #expect(try app.admin("DELETE", "/admin/v1/webhooks/\(created.id)").status == 404)
    }
}

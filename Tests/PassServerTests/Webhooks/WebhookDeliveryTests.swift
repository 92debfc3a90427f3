import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// How deliveries go, on both backends, against a local receiver: 500s and timeouts are retried
/// with growing delays until a 2xx; a disabled endpoint receives nothing while an enabled one in
/// the same setup does, and its waiting deliveries are held until it is enabled; an endpoint that
/// failed for three days (an injected clock) is disabled with the reason and can be enabled again;
/// a redelivery carries the same id and body.
@Suite("Webhooks: delivery", .offCooperativePool, .timeLimit(.minutes(5)))
struct WebhookDeliveryTests {
    /// Received times of each webhook event's attempts, by id, in order.
    static func attempts(_ deliveries: [FakeWebhookReceiver.Delivery]) -> [String: [Date]] {
        Dictionary(grouping: deliveries, by: { $0.webhookID ?? "" }).mapValues { $0.map(\.receivedAt).sorted() }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    @Test("500s and timeouts are retried with growing delays, then delivered once answered 2xx", arguments: Backend.allCases)
    func retriesGrow(_ backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend) { configuration in
            WebhookTest.configure(&configuration)
            // Every timeout is an attempt of its own here (no lane rests), so each delivery's gaps are its own backoff.
            configuration.webhooks.restAfterUnreachable = 0
            // Delays of a second and more, which a loaded machine's own delays (claims, answers recorded) do not blur.
            configuration.webhooks.retryBaseDelay = 1
            configuration.webhooks.retryMaxDelay = 30
            // The 16 timed-out deliveries below all in flight at once: none waits behind another.
            configuration.webhooks.perEndpointConcurrency = 16
        }
        defer { app.stop() }
        // A delayed answer holds a thread: room for the 16 slow ones and the rest.
        let receiver = try FakeWebhookReceiver(threads: 32)
        defer { receiver.shutdown() }
        let failing = try WebhookTest.register(app, url: receiver.url("failing"), types: ["ticket.issued"])
        receiver.always("failing", .status(500))
        let event = try app.createEvent()
        for index in 0..<12 { _ = try app.issueTicket(event: event, attendee: "Guest \(index)") }
        var received = try await WebhookTest.waitFor(receiver, "failing", "four attempts of each of 12 deliveries") {
            let byID = Self.attempts($0)
            return byID.count == 12 && byID.values.allSatisfy { $0.count >= 4 }
        }
        // While failing, the log shows each delivery pending with the 500 and its attempts.
        let log = try #require(try app.admin("GET", "/admin/v1/webhooks/\(failing.id)/deliveries").jsonObject?["items"] as? [[String: Any]])
        #expect(log.count == 12 && log.allSatisfy { $0["state"] as? String == "pending" && $0["lastStatus"] as? Int == 500 && ($0["attempts"] as? Int ?? 0) >= 3 })
        let gaps = (0..<3).map { step in
            Self.attempts(received).values.map { $0[step + 1].timeIntervalSince($0[step]) }
        }
        #expect(gaps.joined().allSatisfy { $0 >= 0.45 }, "no retry before the schedule's shortest delay (half the first): \(gaps)")
        #expect(Self.median(gaps[0]) < Self.median(gaps[1]) && Self.median(gaps[1]) < Self.median(gaps[2]), "retry delays grow: medians \(gaps.map(Self.median))")
        receiver.always("failing", .status(204))
        received = try await WebhookTest.waitFor(receiver, "failing", "every delivery answered 204") { deliveries in
            Set(deliveries.filter { $0.answer == 204 }.compactMap(\.webhookID)).count == 12
        }
        #expect(received.filter { $0.answer == 204 }.count == 12, "each delivered once")
        #expect(received.allSatisfy { WebhookTest.verifies($0, secret: failing.secret) })
        #expect(Set(received.map { $0.body }).count == 12, "each delivery sent the same body every time")

        // Timeouts: a receiver that answers only after the 1 s timeout. Sixteen deliveries: each
        // delay is drawn from a window that doubles (full jitter: 0.5–1 s, 0.5–2 s, 0.5–4 s), and
        // with eight the medians of two neighbouring windows came out in the wrong order now and
        // then by chance alone.
        let slow = try WebhookTest.register(app, url: receiver.url("slow"), types: ["ticket.cancelled"])
        receiver.always("slow", .delayed(seconds: 1.6, status: 200))
        var cancelled: [String] = []
        for index in 0..<16 {
            let serial = try app.issueTicket(event: event, attendee: "Late \(index)")
            #expect(try app.admin("POST", "/admin/v1/tickets/\(serial)/cancel", json: "{}").status == 200)
            cancelled.append(serial)
        }
        let timedOut = try await WebhookTest.waitFor(receiver, "slow", "four attempts of each of 16 deliveries", timeout: 90) {
            let byID = Self.attempts($0)
            return byID.count == 16 && byID.values.allSatisfy { $0.count >= 4 }
        }
        let slowGaps = (0..<3).map { step in
            Self.attempts(timedOut).values.map { $0[step + 1].timeIntervalSince($0[step]) - 1 }
        }
        #expect(Self.median(slowGaps[0]) < Self.median(slowGaps[1]) && Self.median(slowGaps[1]) < Self.median(slowGaps[2]),
                "retry delays after timeouts grow: medians \(slowGaps.map(Self.median))")
        let slowLog = try #require(try app.admin("GET", "/admin/v1/webhooks/\(slow.id)/deliveries").jsonObject?["items"] as? [[String: Any]])
        #expect(slowLog.allSatisfy { $0["state"] as? String == "pending" && $0["lastStatus"] as? Int == 0 && ($0["lastError"] as? String)?.contains("timedOut") == true },
                "\(slowLog.prefix(2))")
        receiver.always("slow", .status(200))
        try await WebhookTest.waitFor(receiver, "slow", "every timed-out delivery answered in time") { deliveries in
            Set(deliveries.filter { $0.answer == 200 }.compactMap(\.webhookID)).count == 16
        }
    }

    @Test("a disabled endpoint receives nothing while an enabled one does; its waiting deliveries are held until enabled", arguments: Backend.allCases)
    func disabledReceivesNothing(_ backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend, configure: WebhookTest.configure)
        defer { app.stop() }
        let receiver = try FakeWebhookReceiver()
        defer { receiver.shutdown() }
        let on = try WebhookTest.register(app, url: receiver.url("on"), types: ["ticket.issued", "ticket.updated"])
        let off = try WebhookTest.register(app, url: receiver.url("off"), types: ["ticket.issued", "ticket.updated"])
        let event = try app.createEvent()
        // Both receive while both are enabled: the setup can deliver to either.
        _ = try app.issueTicket(event: event, attendee: "First")
        try await WebhookTest.waitFor(receiver, "on", "the first ticket at on") { $0.count == 1 }
        try await WebhookTest.waitFor(receiver, "off", "the first ticket at off") { $0.count == 1 }

        let disabled = try app.admin("PATCH", "/admin/v1/webhooks/\(off.id)", json: #"{"enabled":false}"#)
        #expect(disabled.status == 200 && disabled.jsonObject?["enabled"] as? Bool == false)
        #expect(disabled.jsonObject?["disabledReason"] as? String == "Disabled by an admin.")
        let second = try app.issueTicket(event: event, attendee: "Second")
        #expect(try app.admin("PATCH", "/admin/v1/tickets/\(second)", json: #"{"seat":"C3"}"#).status == 200)
        try await WebhookTest.waitFor(receiver, "on", "the second ticket and its change at on") { $0.count == 3 }
        try await Task.sleep(for: .seconds(1))
        #expect(receiver.deliveries("off").count == 1, "the disabled endpoint received nothing more")
        let offLog = try #require(try app.admin("GET", "/admin/v1/webhooks/\(off.id)/deliveries").jsonObject?["items"] as? [[String: Any]])
        #expect(offLog.count == 1, "nothing was queued for it either")

        // Deliveries waiting when an endpoint is disabled are held, and go once it is enabled.
        receiver.always("on", .status(503))
        _ = try app.issueTicket(event: event, attendee: "Third")
        try await WebhookTest.waitFor(receiver, "on", "the third ticket refused at on") { $0.contains { $0.answer == 503 } }
        #expect(try app.admin("PATCH", "/admin/v1/webhooks/\(on.id)", json: #"{"enabled":false}"#).status == 200)
        try await eventually("the third ticket's delivery held") {
            let items = try app.admin("GET", "/admin/v1/webhooks/\(on.id)/deliveries").jsonObject?["items"] as? [[String: Any]]
            return items?.first?["state"] as? String == "held"
        }
        let refusedSoFar = receiver.deliveries("on").count
        try await Task.sleep(for: .seconds(1))
        #expect(receiver.deliveries("on").count == refusedSoFar, "a held delivery is not sent")
        receiver.always("on", .status(200))
        let enabled = try app.admin("PATCH", "/admin/v1/webhooks/\(on.id)", json: #"{"enabled":true}"#)
        #expect(enabled.status == 200 && enabled.jsonObject?["enabled"] as? Bool == true && enabled.jsonObject?["disabledReason"] == nil)
        try await WebhookTest.waitFor(receiver, "on", "the held delivery sent once enabled") { $0.last?.answer == 200 && $0.count == refusedSoFar + 1 }
    }

    @Test("an endpoint whose every delivery failed for three days is disabled, shown with the reason, and can be enabled again", arguments: Backend.allCases)
    func failingForThreeDays(_ backend: Backend) async throws {
        let clock = MovableClock()
        let app = try await offPool { try TestApp.start(backend, clock: clock, configure: WebhookTest.configure) }
        defer { app.stop() }
        let receiver = try FakeWebhookReceiver()
        defer { receiver.shutdown() }
        let endpoint = try WebhookTest.register(app, url: receiver.url("down"), types: ["ticket.issued"])
        receiver.always("down", .status(500))
        let event = try app.createEvent()
        _ = try app.issueTicket(event: event, attendee: "Ada")
        try await WebhookTest.waitFor(receiver, "down", "two failed attempts") { $0.count >= 2 }
        var shown = try #require(try app.admin("GET", "/admin/v1/webhooks/\(endpoint.id)").jsonObject)
        #expect(shown["enabled"] as? Bool == true && shown["failingSince"] as? String != nil && shown["lastFailure"] as? String == "answered 500")

        // Not yet: two days of failing.
        clock.set(ahead: 2 * 86_400)
        let beforeLimit = receiver.deliveries("down").count
        try await WebhookTest.waitFor(receiver, "down", "another failed attempt two days on") { $0.count > beforeLimit }
        #expect(try app.admin("GET", "/admin/v1/webhooks/\(endpoint.id)").jsonObject?["enabled"] as? Bool == true)

        clock.set(ahead: 3 * 86_400 + 120)
        try await eventually("the endpoint disabled after three days of failures: \(app.logs.lines.filter { !$0.contains(" http: ") }.suffix(12))") {
            try app.admin("GET", "/admin/v1/webhooks/\(endpoint.id)").jsonObject?["enabled"] as? Bool == false
        }
        shown = try #require(try app.admin("GET", "/admin/v1/webhooks/\(endpoint.id)").jsonObject)
        let reason = try #require(shown["disabledReason"] as? String)
        #expect(reason.contains("3 days") && reason.contains("answered 500"), "\(reason)")
        let metrics = try app.request("GET", "/metrics").text
        #expect(metrics.contains("passserver_webhook_endpoints{state=\"disabled\"} 1"))

        receiver.always("down", .status(200))
        let enabled = try app.admin("PATCH", "/admin/v1/webhooks/\(endpoint.id)", json: #"{"enabled":true}"#)
        #expect(enabled.status == 200 && enabled.jsonObject?["enabled"] as? Bool == true && enabled.jsonObject?["failingSince"] == nil)
        _ = try app.issueTicket(event: event, attendee: "Bo")
        try await WebhookTest.waitFor(receiver, "down", "a delivery answered 200 after enabling: \(app.logs.lines.filter { !$0.contains(" http: ") }.suffix(12))") { $0.last?.answer == 200 }
        try await eventually("the success recorded on the endpoint") {
            try app.admin("GET", "/admin/v1/webhooks/\(endpoint.id)").jsonObject?["lastSuccessAt"] as? String != nil
        }
    }

    @Test("a redelivery carries the same id and body, signed anew", arguments: Backend.allCases)
    func redelivery(_ backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend, configure: WebhookTest.configure)
        defer { app.stop() }
        let receiver = try FakeWebhookReceiver()
        defer { receiver.shutdown() }
        let endpoint = try WebhookTest.register(app, url: receiver.url("again"), types: ["ticket.issued"])
        _ = try app.issueTicket(event: try app.createEvent(), attendee: "Ada")
        let first = try #require(try await WebhookTest.waitFor(receiver, "again", "the first delivery") { $0.count == 1 }.first)
        let log = try #require(try app.admin("GET", "/admin/v1/webhooks/\(endpoint.id)/deliveries").jsonObject?["items"] as? [[String: Any]])
        let delivery = try #require(log.first?["id"] as? String)
        #expect(log.first?["webhookId"] as? String == first.webhookID)
        try await Task.sleep(for: .milliseconds(1_100))
        let redelivered = try app.admin("POST", "/admin/v1/webhooks/\(endpoint.id)/deliveries/\(delivery)/redeliver")
        #expect(redelivered.status == 202 && redelivered.jsonObject?["webhookId"] as? String == first.webhookID)
        let second = try #require(try await WebhookTest.waitFor(receiver, "again", "the redelivery") { $0.count == 2 }.last)
        #expect(second.webhookID == first.webhookID && second.body == first.body)
        #expect(second.signature != first.signature, "signed at its own time")
        #expect(WebhookTest.verifies(second, secret: endpoint.secret))
        #expect(try app.admin("POST", "/admin/v1/webhooks/\(endpoint.id)/deliveries/999999/redeliver").status == 404)
    }
}

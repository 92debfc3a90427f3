import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Metrics", .offCooperativePool, .timeLimit(.minutes(4)))
struct MetricsTests {
    @Test("/metrics reports outbox depth, push outcomes and the bundle cache; APNS_MODE=log records pushes as logged", arguments: Backend.allCases)
    func metrics(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        #expect(try phone.fetch(serial).status == 200)
        #expect(try phone.fetch(serial).status == 200)
        let rename = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"Grace Hopper"}"#)
        #expect(rename.status == 200)

        // APNS_MODE=log only logs the push: it is counted and recorded as logged, never as delivered.
        var text = ""
        try await eventually("the logged push counted: \(text.split(separator: "\n").filter { $0.contains("pushes_total") })") {
            text = try app.request("GET", "/metrics").text
            return text.contains(#"passserver_pushes_total{outcome="logged"} 1"#)
        }
        let response = try app.request("GET", "/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(text.contains(#"passserver_pushes_total{outcome="logged"} 1"#))
        #expect(text.contains(#"passserver_pushes_total{outcome="delivered"} 0"#))
        #expect(text.contains(#"passserver_registrations_pruned_total{reason="DeviceTokenNotForTopic"} 0"#))
        #expect(text.contains(#"passserver_pushes_failed_total{reason="retries_exhausted"} 0"#))
        #expect(text.contains("passserver_apns_unreachable 0"))
        let log = try app.store.withSession(.read) { try $0.outbox.latestPushes(tokenHashes: [PushDispatcher.tokenHash(.hex(phone.pushToken))], limit: 10) }
        #expect(log.count == 1)
        #expect(log.first?.outcome == "logged")
        #expect(log.first?.status == 0, "no status from APNs: nothing was sent")
        #expect(log.first?.apnsID == nil)
        let ticket = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        let pushes = try #require(ticket["latestPushes"] as? [[String: Any]])
        #expect(pushes.first?["outcome"] as? String == "logged")
        #expect(pushes.first?["status"] as? Int == 0)
        #expect(text.contains(#"passserver_push_outbox{state="pending"} 0"#))
        #expect(text.contains(#"passserver_bundle_cache_lookups_total{result="hit"} 1"#))
        #expect(text.contains(#"passserver_bundle_cache_lookups_total{result="miss"} 1"#))
        #expect(text.contains("passserver_apns_halted 0"))
        #expect(text.contains("# TYPE passserver_pushes_total counter"))
    }
}

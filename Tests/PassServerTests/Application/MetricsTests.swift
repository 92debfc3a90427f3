import Foundation
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Metrics")
struct MetricsTests {
    @Test("/metrics reports outbox depth, push outcomes and the bundle cache", arguments: Backend.allCases)
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

        // APNS_MODE=log answers every push as delivered.
        var text = ""
        for _ in 0..<200 {
            text = try app.request("GET", "/metrics").text
            if text.contains(#"passserver_pushes_total{outcome="delivered"} 1"#) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let response = try app.request("GET", "/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(text.contains(#"passserver_pushes_total{outcome="delivered"} 1"#))
        #expect(text.contains(#"passserver_push_outbox{state="pending"} 0"#))
        #expect(text.contains(#"passserver_bundle_cache_lookups_total{result="hit"} 1"#))
        #expect(text.contains(#"passserver_bundle_cache_lookups_total{result="miss"} 1"#))
        #expect(text.contains("passserver_apns_halted 0"))
        #expect(text.contains("# TYPE passserver_pushes_total counter"))
    }
}

import FakeAPNs
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// APNs goes away for real (its listener closed, connects refused) while pushes wait: `/readyz`
/// says so once the outage outlasts `APNS_UNREACHABLE_GRACE`, recovers by itself, and nothing is lost.
@Suite("Push dispatcher: APNs outage", .offCooperativePool)
struct PushOutageTests {
    static let outage: TimeInterval = 90
    static let grace = 20
    static let tokens = 20

    struct Sample {
        var at: Date
        var status: Int
        var reasons: [[String: String]]
    }

    @Test("the fake APNs stopped for 90 s with pushes pending: /readyz 200 within the grace, 503 after it, 200 once it is back on the same port; every push delivered",
          .timeLimit(.minutes(6)), arguments: Backend.allCases)
    func outage(backend: Backend) async throws {
        let began = Date()
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "passserver-outage"))
        // A port the restart will find free after the 90 s outage (`RestartablePort`).
        let first = try PushFixture.makeFake(certificates, port: try RestartablePort.free())
        defer { first.shutdown() }
        let app = try TestApp.start(backend, apns: first, certificates: certificates) { configuration in
            configuration.apns.requestTimeout = 10
            configuration.apns.unreachableGrace = Self.grace
            configuration.push.retryBaseDelay = 0.1
            configuration.push.retryMaxDelay = 5
        }
        defer { app.stop() }
        let fixture = try PushFixture(app: app, fake: first)
        let (serial, tokens) = try PushResilienceTests.bulkRegistrations(fixture, count: Self.tokens)

        // The path works and the client holds an open connection when APNs disappears.
        try fixture.change(serial)
        try await eventually("first round delivered") { try tokens.allSatisfy { first.count(token: $0) == 1 } && fixture.counts.pending == 0 }
        first.shutdown()
        let stopped = Date()
        try fixture.change(serial)
        let changed = Date()

        var samples: [Sample] = []
        var metricsDuringOutage = ""
        while Date() < stopped.addingTimeInterval(Self.outage) {
            let response = try fixture.readiness()
            samples.append(Sample(at: Date(), status: response.status, reasons: response.jsonObject?["reasons"] as? [[String: String]] ?? []))
            if response.status == 503 && metricsDuringOutage.isEmpty { metricsDuringOutage = try app.request("GET", "/metrics").text }
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(try fixture.counts.pending == Self.tokens, "every push of the second change waited")

        // APNs returns on the same port.
        let second = try await Self.restart(first)
        defer { second.shutdown() }
        let restarted = Date()
        try await eventually("every pending push delivered after the outage", timeout: 120) {
            try tokens.allSatisfy { second.count(token: $0) >= 1 } && fixture.counts.summary == [0, 0, 0]
        }
        try await eventually("ready again", timeout: 30) { try fixture.readiness().status == 200 }
        let recovered = Date()

        // Before the grace had passed since the pushes became pending: 200 throughout.
        let withinGrace = samples.filter { $0.at < changed.addingTimeInterval(Double(Self.grace)) }
        #expect(withinGrace.count >= 10)
        #expect(withinGrace.allSatisfy { $0.status == 200 })
        // After it: 503 naming APNs as unreachable, and 503 from then on until APNs returned.
        let firstUnready = try #require(samples.firstIndex { $0.status == 503 }, "/readyz never went 503 during the outage")
        print(String(
            format: "%@: set-up %.1f s; /readyz 503 %.1f s after the pushes became pending (grace %d s); delivered and ready %.1f s after APNs returned",
            backend.rawValue, stopped.timeIntervalSince(began), samples[firstUnready].at.timeIntervalSince(changed), Self.grace,
            recovered.timeIntervalSince(restarted)
        ))
        #expect(samples[firstUnready].at >= changed.addingTimeInterval(Double(Self.grace)))
        #expect(samples[firstUnready].at < changed.addingTimeInterval(Double(Self.grace) + 45), "503 came long after the grace")
        #expect(samples[firstUnready...].allSatisfy { $0.status == 503 })
        #expect(samples[firstUnready...].allSatisfy { sample in
            sample.reasons.contains { $0["component"] == "apns" && $0["message"]?.contains("unreachable") == true }
        })
        #expect(metricsDuringOutage.contains("passserver_apns_unreachable 1"))
        #expect(metricsDuringOutage.contains("passserver_apns_halted 0"), "an outage is not a halt")
        // Refused connects count as pushes APNs never answered: each waiting push failed at least once.
        let transportFailures = MetricsFamiliesTests.value("passserver_push_transport_failures_total", in: metricsDuringOutage) ?? 0
        #expect(transportFailures >= Double(Self.tokens), "\(transportFailures)")
        #expect(app.application.dispatcher.statistics.halted == 0)
        #expect(try app.request("GET", "/metrics").text.contains("passserver_apns_unreachable 0"))
        #expect(app.logs.lines.contains { $0.contains("APNs unreachable") })
        #expect(app.logs.lines.contains { $0.contains("APNs reachable again") })
    }

    /// A new fake on the port `stopped` listened on. The port was free for the whole outage, so
    /// another process's connection may hold it for a moment: binding is retried for a while.
    static func restart(_ stopped: FakeAPNs) async throws -> FakeAPNs {
        var configuration = stopped.configuration
        configuration.port = stopped.port
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                return try FakeAPNs(configuration: configuration)
            } catch where Date() < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}

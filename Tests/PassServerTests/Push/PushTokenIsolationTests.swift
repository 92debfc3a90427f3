import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// An attendee can register any push token, including a real token of another app, which APNs
/// answers with `400 DeviceTokenNotForTopic`. Such an answer must only ever cost that one
/// registration: every other push of the same change goes out without a pause.
@Suite("Push dispatcher: one attendee's token never stalls the others", .offCooperativePool)
struct PushTokenIsolationTests {
    /// Pushes in flight at once. While a halt is in force nothing new is claimed, so at most this
    /// many minus one deliveries could be recorded after the first refusal if it halted.
    static let concurrency = 25
    /// Far longer than the test may take: a halt would stop the round visibly.
    static let haltPause = 600

    @Test("1,000 tokens, 10 answer DeviceTokenNotForTopic: the other 990 go out in the same round, the 10 are pruned, nothing retried, /readyz stays 200",
          .timeLimit(.minutes(5)), arguments: Backend.allCases)
    func foreignTokens(backend: Backend) async throws {
        let fixture = try PushFixture(backend) { configuration in
            configuration.push.haltPause = Self.haltPause
            configuration.push.concurrency = Self.concurrency
        }
        defer { fixture.stop() }
        let (serial, tokens) = try PushResilienceTests.bulkRegistrations(fixture, count: 1_000)
        let foreign = Set(tokens.shuffled().prefix(10))
        // A retry would be refused again and show up in the fake's record.
        for token in foreign {
            fixture.fake.script(token: token, Array(repeating: .error(status: 400, reason: "DeviceTokenNotForTopic"), count: 5))
        }
        #expect(try fixture.readiness().status == 200)

        let started = Date()
        try fixture.change(serial)
        var readiness: [Int] = []
        // The dispatcher counts a batch just after recording it: wait for both.
        try await eventually("outbox emptied and every answer counted", timeout: 180) {
            readiness.append(try fixture.readiness().status)
            let counted = fixture.app.application.dispatcher.statistics
            return try fixture.counts.summary == [0, 0, 0] && counted.delivered + counted.pruned >= 1_000
        }
        let elapsed = Date().timeIntervalSince(started)

        // Same round: no halt happened, and the whole change took less than one halt pause.
        let statistics = fixture.app.application.dispatcher.statistics
        #expect(statistics.halted == 0)
        #expect(statistics.delivered == 990)
        #expect(statistics.pruned == 10)
        #expect(statistics.registrationsPruned == ["DeviceTokenNotForTopic": 10])
        #expect(elapsed < Double(Self.haltPause), "took \(elapsed) s")
        // In recording order, the deliveries recorded after the first refusal: a halt would have
        // let through only the pushes already in flight (fewer than `concurrency`).
        let log = try fixture.app.store.withSession(.read) { try $0.outbox.latestPushes(tokenHashes: tokens.map { try PushDispatcher.tokenHash(.hex($0)) }, limit: 5_000) }.reversed()
        #expect(log.count == 1_000)
        let firstRefusal = try #require(log.firstIndex { $0.reason == "DeviceTokenNotForTopic" })
        let deliveredAfter = log[firstRefusal...].filter { $0.status == 200 && $0.outcome == "delivered" }.count
        #expect(deliveredAfter >= Self.concurrency, "only \(deliveredAfter) deliveries recorded after the first refusal")

        // /readyz was checked while the round ran and never left 200.
        #expect(readiness.count >= 2)
        #expect(readiness.allSatisfy { $0 == 200 })
        #expect(try fixture.readiness().status == 200)

        // The 990 were delivered once each; the 10 registrations are gone and were not retried.
        try await Task.sleep(for: .seconds(1.5))
        var perToken: [String: [Int]] = [:]
        for push in fixture.fake.pushes { perToken[push.token, default: []].append(push.status) }
        #expect(perToken.count == 1_000)
        for token in tokens {
            #expect(perToken[token] == (foreign.contains(token) ? [400] : [200]), "token \(token.prefix(8))")
        }
        #expect(try fixture.registrations(serial) == 990)
        let remaining = Set(try fixture.app.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: fixture.app.passType, serialNumber: "\(serial)") }.map(\.rawValue))
        #expect(remaining.isDisjoint(with: foreign))
        #expect(remaining.count == 990)

        // The ticket's admin view lists the pruned registrations; /metrics counts them by reason.
        let ticket = try #require(try fixture.app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        #expect(ticket["registeredDevices"] as? Int == 990)
        let pruned = try #require(ticket["prunedRegistrations"] as? [[String: Any]])
        #expect(pruned.count == 10)
        #expect(pruned.allSatisfy { $0["reason"] as? String == "DeviceTokenNotForTopic" && $0["status"] as? Int == 400 && $0["at"] is String })
        let hashes = Set(try foreign.map { String(try PushDispatcher.tokenHash(.hex($0)).prefix(16)) })
        #expect(Set(pruned.compactMap { $0["tokenHash"] as? String }) == hashes)
        let metrics = try fixture.app.request("GET", "/metrics").text
        #expect(metrics.contains(#"passserver_registrations_pruned_total{reason="DeviceTokenNotForTopic"} 10"#))
        #expect(metrics.contains(#"passserver_pushes_total{outcome="halted"} 0"#))
        #expect(metrics.contains("passserver_apns_halted 0"))
    }
}

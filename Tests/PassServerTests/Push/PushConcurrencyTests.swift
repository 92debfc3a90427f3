import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// `PUSH_CONCURRENCY` bounds the pushes in flight: the dispatcher claims only while fewer are out.
@Suite("Push dispatcher: pushes in flight stay within PUSH_CONCURRENCY", .offCooperativePool)
struct PushConcurrencyTests {
    @Test("PUSH_CONCURRENCY is read from the environment")
    func setting() throws {
        #expect(try Configuration.load(environment: [:]).push.concurrency == 1_000)
        #expect(try Configuration.load(environment: ["PUSH_CONCURRENCY": "10"]).push.concurrency == 10)
        #expect(throws: (any Error).self) { try Configuration.load(environment: ["PUSH_CONCURRENCY": "0"]) }
    }

    @Test("60 pushes answered after 0.5 s on one connection, at most 10 in flight: the fake sees 10 streams at once, never 11",
          .timeLimit(.minutes(2)), arguments: Backend.allCases)
    func bounded(backend: Backend) async throws {
        let limit = 10
        let fixture = try PushFixture(backend, defaultAnswer: .delayed(seconds: 0.5, then: .success)) { configuration in
            configuration.apns.connections = 1
            configuration.push.concurrency = limit
        }
        defer { fixture.stop() }
        let (serial, tokens) = try PushResilienceTests.bulkRegistrations(fixture, count: 60)

        try fixture.change(serial)
        try await eventually("every push answered and recorded", timeout: 60) {
            try fixture.counts.summary == [0, 0, 0] && fixture.app.application.dispatcher.statistics.delivered >= tokens.count
        }
        let pushes = fixture.fake.pushes
        #expect(Set(pushes.map(\.token)) == Set(tokens))
        // Sixty were due at once: without the bound the first claim alone would open sixty streams.
        let peak = pushes.map(\.concurrentStreams).max() ?? 0
        #expect(peak <= limit, "\(peak) streams open at once")
        #expect(peak == limit, "the dispatcher filled its \(limit) slots (peak \(peak))")
    }
}

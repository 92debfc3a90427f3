import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The dispatcher loses nothing when APNs goes away: connection drops, GOAWAY mid-batch, and its
/// own graceful shutdown with pushes in flight.
@Suite("Push dispatcher: resilience", .offCooperativePool, .serialized, .timeLimit(.minutes(4)))
struct PushResilienceTests {
    /// Registers `count` devices for one new ticket directly in the store (bulk setup; the device
    /// API path is covered by the other tests) and returns the ticket's serial and the tokens.
    static func bulkRegistrations(_ fixture: PushFixture, count: Int) throws -> (serial: String, tokens: [String]) {
        let serial = try fixture.app.issueTicket(event: fixture.event)
        let tokens = (0..<count).map { _ in Phone.randomPushToken() }
        let passType = fixture.app.passType
        try fixture.app.store.transaction { session in
            for (index, token) in tokens.enumerated() {
                _ = try session.registrations.upsertRegistration(
                    deviceLibraryIdentifier: "device\(index)x\(UUID().uuidString.prefix(8))", pushToken: .hex(token),
                    passTypeIdentifier: passType, serialNumber: "\(serial)", now: Date()
                )
            }
        }
        return (serial, tokens)
    }

    @Test("connections dropped mid-batch: every pending push is delivered once APNs is back", arguments: Backend.allCases)
    func connectionDrop(backend: Backend) async throws {
        // Twenty devices on one pass: above the default MAX_DEVICES_PER_PASS of 10.
        let fixture = try PushFixture(backend, defaultAnswer: .delayed(seconds: 0.5, then: .success)) { $0.maxDevicesPerPass = 20 }
        defer { fixture.stop() }
        let serial = try fixture.app.issueTicket(event: fixture.event)
        var tokens: [String] = []
        for _ in 0..<20 {
            let (phone, _) = try fixture.registeredPhone(serial: serial)
            tokens.append(phone.pushToken)
        }
        try fixture.change(serial)
        try await eventually("a batch in flight") { fixture.fake.pushes.count >= 5 }
        fixture.fake.stopListening()
        fixture.fake.dropConnections()
        try await Task.sleep(for: .seconds(1))
        try fixture.fake.startListening()
        try await eventually("every token delivered", timeout: 60) { tokens.allSatisfy { fixture.fake.count(token: $0) >= 1 } }
        try await eventually("outbox emptied") { try fixture.counts.summary == [0, 0, 0] }
        #expect(fixture.fake.connectionsAccepted >= 2)
    }

    @Test("GOAWAY every 100 streams during 2,000 pushes: each token answered exactly once", arguments: Backend.allCases)
    func goAwayDuringBatch(backend: Backend) async throws {
        let fixture = try PushFixture(backend, goAwayAfter: 100)
        defer { fixture.stop() }
        let (serial, tokens) = try Self.bulkRegistrations(fixture, count: 2_000)
        try fixture.change(serial)
        // The dispatcher counts a batch just after recording it: wait for both.
        try await eventually("outbox emptied and every delivery counted", timeout: 90) {
            try fixture.counts.summary == [0, 0, 0] && fixture.app.application.dispatcher.statistics.delivered >= 2_000
        }
        let pushes = fixture.fake.pushes
        var perToken: [String: Int] = [:]
        for push in pushes { perToken[push.token, default: 0] += 1 }
        #expect(pushes.count == 2_000)
        #expect(Set(perToken.keys) == Set(tokens))
        #expect(perToken.values.allSatisfy { $0 == 1 })
        #expect(pushes.allSatisfy { $0.status == 200 })
        #expect(fixture.fake.connectionsAccepted >= 2_000 / 100)
        #expect(fixture.app.application.dispatcher.statistics.delivered == 2_000)
    }

    @Test("shutdown waits for pushes in flight and records them", arguments: Backend.allCases)
    func shutdownDrains(backend: Backend) async throws {
        let fixture = try PushFixture(backend, defaultAnswer: .delayed(seconds: 1, then: .success))
        defer { fixture.stop() }
        let (serial, tokens) = try Self.bulkRegistrations(fixture, count: 10)
        try fixture.change(serial)
        try await eventually("all ten in flight") { fixture.fake.pushes.count == 10 }
        await offPool { fixture.app.stop() }

        let store = try Storage.openStore(url: fixture.app.databaseURL)
        defer { store.close() }
        #expect(try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.summary == [0, 0, 0])
        let log = try store.withSession(.read) { try $0.outbox.latestPushes(tokenHashes: tokens.map { try PushDispatcher.tokenHash(.hex($0)) }, limit: 100) }
        #expect(log.count == 10)
        #expect(log.allSatisfy { $0.status == 200 })
    }
}

import Foundation
import PassIdentifiers
import PassServerTesting
import Synchronization
import Testing

@testable import Storage

@Suite("Push outbox", .offCooperativePool, .timeLimit(.minutes(3)))
struct OutboxTests {
    private func change(_ fixture: StoreFixture, _ serial: SerialNumber, now: Date) throws -> PassUpdate {
        try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: serial, change: PassChange(touch: true), now: now)
        }
    }

    @Test(arguments: Backend.allCases)
    func changesCoalesceIntoOneRowPerTokenAndType(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        try fixture.makePass(serial: "O1")
        try fixture.makePass(serial: "O2")
        _ = try fixture.register(device: "d1", token: .fixture("tok"), serial: "O1")
        _ = try fixture.register(device: "d1", token: .fixture("tok"), serial: "O2")
        _ = try change(fixture, "O1", now: now)
        _ = try change(fixture, "O1", now: now)
        _ = try change(fixture, "O2", now: now)
        #expect(try fixture.store.withSession(.read) { try $0.outbox.outboxCounts(now: now) } == OutboxCounts(pending: 1, inFlight: 0, failed: 0))
        let claimed = try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: now, lease: .seconds(30)) }
        #expect(claimed.count == 1)
        #expect(claimed.first?.pushToken == .fixture("tok"))
        #expect(claimed.first?.generation == 3)
        #expect(try fixture.store.withSession(.read) { try $0.outbox.outboxCounts(now: now) }.inFlight == 1)
        #expect(try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: now, lease: .seconds(30)) }.isEmpty)
        #expect(try fixture.store.settle(try #require(claimed.first), .completed, now: now))
        #expect(try fixture.store.withSession(.read) { try $0.outbox.outboxCounts(now: now) } == OutboxCounts(pending: 0, inFlight: 0, failed: 0))
    }

    @Test(arguments: Backend.allCases)
    func changeDuringFlightSurvivesCompletion(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        try fixture.makePass(serial: "F1")
        _ = try fixture.register(device: "d1", token: .fixture("tok"), serial: "F1")
        _ = try change(fixture, "F1", now: now)
        let row = try #require(try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 1, now: now, lease: .seconds(30)) }.first)
        _ = try change(fixture, "F1", now: now) // arrives while the push is in flight
        #expect(try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 1, now: now, lease: .seconds(30)) }.isEmpty)
        #expect(try fixture.store.settle(row, .completed, now: now) == false)
        let again = try #require(try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 1, now: now, lease: .seconds(30)) }.first)
        #expect(again.id == row.id)
        #expect(again.generation > row.generation)
        #expect(try fixture.store.settle(again, .completed, now: now))
    }

    @Test(arguments: Backend.allCases)
    func expiredLeaseIsClaimableAgainAndRetriesBackOff(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        try fixture.makePass(serial: "L1")
        _ = try fixture.register(device: "d1", token: .fixture("tok"), serial: "L1")
        _ = try change(fixture, "L1", now: now)
        let row = try #require(try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 1, now: now, lease: .seconds(30)) }.first)
        // The claimer "crashed": after the lease the row comes back.
        let reclaimed = try #require(try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 1, now: now.addingTimeInterval(31), lease: .seconds(30)) }.first)
        #expect(reclaimed.id == row.id)
        try fixture.store.settle(reclaimed, .retry(nextAttempt: now.addingTimeInterval(120), status: 429, reason: "TooManyRequests"), now: now)
        #expect(try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 1, now: now.addingTimeInterval(60), lease: .seconds(30)) }.isEmpty)
        let retry = try #require(try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 1, now: now.addingTimeInterval(121), lease: .seconds(30)) }.first)
        #expect(retry.attempts == 1)
        try fixture.store.settle(retry, .failed(status: 400, reason: "BadDeviceToken"), now: now)
        #expect(try fixture.store.withSession(.read) { try $0.outbox.outboxCounts(now: now) }.failed == 1)
        // A new change re-arms a failed row.
        _ = try change(fixture, "L1", now: now.addingTimeInterval(200))
        #expect(try fixture.store.withSession(.read) { try $0.outbox.outboxCounts(now: now) } == OutboxCounts(pending: 1, inFlight: 0, failed: 0))
        let rearmed = try #require(try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 1, now: now.addingTimeInterval(200), lease: .seconds(30)) }.first)
        #expect(rearmed.attempts == 0)
        try fixture.store.settle(rearmed, .failed(status: 410, reason: "Unregistered"), now: now.addingTimeInterval(200))
        #expect(try fixture.store.withSession(.read) { try $0.outbox.outboxCounts(now: now) } == OutboxCounts(pending: 0, inFlight: 0, failed: 1))
    }

    @Test(arguments: Backend.allCases)
    func concurrentClaimersNeverShareARow(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        try fixture.makePass(serial: "C1")
        try fixture.store.transaction { session in
            for index in 0..<120 {
                _ = try session.registrations.upsertRegistration(
                    deviceLibraryIdentifier: "dev\(index)", pushToken: .fixture("token\(index)"),
                    passTypeIdentifier: StoreFixture.passType, serialNumber: "C1", now: now
                )
            }
        }
        guard case .updated(_, let enqueued) = try change(fixture, "C1", now: now) else {
            Issue.record("expected an update")
            return
        }
        #expect(enqueued == 120)
        let seen = Mutex<[Int64]>([])
        let store = fixture.store
        struct Runaway: Error {}
        try onThreads(4) { _ in
            // 120 rows, 7 at a time: a claimer that keeps getting rows far beyond that would never stop.
            for claims in 0... {
                guard claims < 200 else { throw Runaway() }
                let rows = try store.withSession(.write) { try $0.outbox.claimOutbox(limit: 7, now: now, lease: .seconds(300)) }
                if rows.isEmpty { break }
                seen.withLock { $0.append(contentsOf: rows.map(\.id)) }
            }
        }
        let ids = seen.withLock { $0 }
        #expect(ids.count == 120)
        #expect(Set(ids).count == 120)
    }

    @Test(arguments: Backend.allCases)
    func pushLogRecordsNewestFirst(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        for index in 0..<3 {
            try fixture.store.recordPushes([PushLogEntry(
                tokenHash: "h\(index % 2)", passTypeIdentifier: StoreFixture.passType, status: 200, apnsID: "id\(index)",
                latencyMilliseconds: Int64(10 + index), createdAt: now.addingTimeInterval(Double(index))
            )])
        }
        let latest = try fixture.store.withSession(.read) { try $0.outbox.latestPushes(tokenHashes: ["h0"], limit: 10) }
        #expect(latest.map(\.apnsID) == ["id2", "id0"])
        #expect(try fixture.store.withSession(.read) { try $0.outbox.latestPushes(tokenHashes: [], limit: 10) }.isEmpty)
        #expect(try fixture.store.withSession(.read) { try $0.outbox.latestPushes(tokenHashes: ["h1"], limit: 10) }.map(\.apnsID) == ["id1"])
    }

    @Test(arguments: Backend.allCases)
    func pushLogKeepsTheOutcome(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        try fixture.store.recordPushes([PushLogEntry(
            tokenHash: "logged", passTypeIdentifier: StoreFixture.passType, status: 0, latencyMilliseconds: 1, createdAt: now, outcome: "logged"
        )])
        try fixture.store.recordPushes([PushLogEntry(
            tokenHash: "old", passTypeIdentifier: StoreFixture.passType, status: 200, latencyMilliseconds: 1, createdAt: now
        )])
        let entries = try fixture.store.withSession(.read) { try $0.outbox.latestPushes(tokenHashes: ["logged", "old"], limit: 10) }
        #expect(entries.map(\.outcome) == [nil, "logged"])
        #expect(entries.last?.status == 0)
    }

    @Test(arguments: Backend.allCases)
    func pendingPushesAreSeen(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        #expect(try fixture.store.withSession(.read) { try $0.outbox.hasPendingPushes() } == false)
        try fixture.makePass(serial: "P1")
        _ = try fixture.register(device: "d1", token: .fixture("t1"), serial: "P1")
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "P1", change: PassChange(seat: "B2"), now: Date())
        }
        #expect(try fixture.store.withSession(.read) { try $0.outbox.hasPendingPushes() } == true)
        let row = try #require(try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 1, now: Date(), lease: .seconds(60)) }.first)
        try fixture.store.settle(row, .failed(status: 400, reason: "BadPriority"), now: Date())
        #expect(try fixture.store.withSession(.read) { try $0.outbox.hasPendingPushes() } == false, "a failed row is not pending")
    }
}

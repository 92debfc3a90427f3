import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@testable import Storage

/// Settling a batch of answered outbox rows in bulk, and the push log's multi-row insert.
@Suite("Outbox settlement in bulk", .offCooperativePool)
struct OutboxSettlementTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("each row's fate follows from its generation and attempts as locked at settlement")
    func steps() {
        let entry = { (change: OutboxSettlement.Change) in OutboxSettlement.Entry(id: 1, generation: 4, change: change) }
        let millis = now.storageMillis
        #expect(OutboxSettlement.step(for: entry(.completed), current: (4, 2), now: now) == .delete)
        // A change arrived in flight: released as due now, attempts reset, the previous answer kept.
        #expect(OutboxSettlement.step(for: entry(.completed), current: (5, 2), now: now)
            == .update(attempts: 0, nextAttemptMillis: millis, failed: false, lastStatus: nil, lastReason: nil))
        let later = now.addingTimeInterval(30)
        #expect(OutboxSettlement.step(for: entry(.retry(nextAttempt: later, status: 429, reason: "TooManyRequests")), current: (5, 2), now: now)
            == .update(attempts: 3, nextAttemptMillis: later.storageMillis, failed: false, lastStatus: 429, lastReason: "TooManyRequests"))
        #expect(OutboxSettlement.step(for: entry(.failed(status: 400, reason: "BadPriority")), current: (4, 0), now: now)
            == .update(attempts: 1, nextAttemptMillis: millis, failed: true, lastStatus: 400, lastReason: "BadPriority"))
        // Failed, but a change arrived in flight: pending again so that change is tried.
        #expect(OutboxSettlement.step(for: entry(.failed(status: 400, reason: "BadPriority")), current: (5, 0), now: now)
            == .update(attempts: 1, nextAttemptMillis: millis, failed: false, lastStatus: 400, lastReason: "BadPriority"))
    }

    @Test("a batch of completions, a change in flight, a retry and a failure settle in one call", arguments: Backend.allCases)
    func settleBatch(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let start = Date()
        for index in 0..<6 {
            try fixture.makePass(serial: "S\(index)")
            _ = try fixture.register(device: "d\(index)", token: .fixture("token\(index)"), serial: "S\(index)")
            _ = try fixture.store.withSession(.write) {
                try $0.passes.updatePass(
                    passTypeIdentifier: StoreFixture.passType, serialNumber: "S\(index)", change: PassChange(touch: true), now: start
                )
            }
        }
        let rows = try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: start, lease: .seconds(600)) }
        #expect(rows.count == 6)
        let byToken = Dictionary(uniqueKeysWithValues: rows.map { ($0.pushToken, $0) })
        // token1 changes again while its push is in flight.
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "S1", change: PassChange(touch: true), now: start)
        }
        let retryAt = start.addingTimeInterval(120)
        let entries: [OutboxSettlement.Entry] = try ["token0", "token1", "token2", "token3", "token4", "token5"].map { token in
            let row = try #require(byToken[.fixture(token)])
            let change: OutboxSettlement.Change = switch token {
            case "token4": .retry(nextAttempt: retryAt, status: 503, reason: "Service\"Unavailable\\\n")
            case "token5": .failed(status: 400, reason: "BadPriority")
            default: .completed
            }
            return OutboxSettlement.Entry(id: row.id, generation: row.generation, change: change)
        }
        let result = try fixture.store.withSession(.write) { try $0.outbox.settleOutbox(OutboxSettlement(entries: entries), now: start) }
        #expect(result.deleted == 3 && result.updated == 3 && result.missing == 0)
        #expect(result.deletedIDs == Set(["token0", "token2", "token3"].compactMap { byToken[.fixture($0)]?.id }))

        // Left: token1 (released, due now), token4 (retrying later, answer kept), token5 (failed).
        #expect(try fixture.store.withSession(.read) { try $0.outbox.outboxCounts(now: start) } == OutboxCounts(pending: 2, inFlight: 0, failed: 1))
        let due = try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: start, lease: .seconds(600)) }
        #expect(due.map(\.pushToken) == [.fixture("token1")])
        #expect(due.first?.attempts == 0)
        let retried = try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: retryAt, lease: .seconds(60)) }
        #expect(retried.map(\.pushToken) == [.fixture("token4")])
        #expect(retried.first?.attempts == 1)
        let reasons = try fixture.store.withSession(.read) { session in
            try session.execute("SELECT push_token, last_status, last_reason, state FROM push_outbox ORDER BY push_token").map {
                "\(try $0.string("push_token")) \(try $0.optionalInt64("last_status") ?? -1) \(try $0.optionalString("last_reason") ?? "-") \(try $0.string("state"))"
            }
        }
        #expect(reasons == [
            "\(PushToken.fixture("token1")) -1 - pending", "\(PushToken.fixture("token4")) 503 Service\"Unavailable\\\n pending",
            "\(PushToken.fixture("token5")) 400 BadPriority failed",
        ])
        // Settling rows that are gone is harmless.
        let again = try fixture.store.withSession(.write) { try $0.outbox.settleOutbox(OutboxSettlement(entries: [entries[0]]), now: start) }
        #expect(again == OutboxSettlementResult(deletedIDs: [], updated: 0, missing: 1))
    }

    @Test("settling 300 rows and logging 300 pushes take as many statements as 3: one lock, one delete, one update, one insert", arguments: Backend.allCases)
    func fixedStatements(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let start = Date()
        let rows = try fixture.claimedOutboxRows(303, due: start)
        #expect(rows.count == 303)
        // A third done, a third retried, a third failed: every statement kind runs in both sizes.
        let entries = rows.enumerated().map { index, row in
            let change: OutboxSettlement.Change = switch index % 3 {
            case 0: .completed
            case 1: .retry(nextAttempt: start.addingTimeInterval(60), status: 503, reason: "ServiceUnavailable")
            default: .failed(status: 400, reason: "BadPriority")
            }
            return OutboxSettlement.Entry(id: row.id, generation: row.generation, change: change)
        }
        let log = { (count: Int) in
            (0..<count).map { index in
                PushLogEntry(
                    tokenHash: "hash\(index)", passTypeIdentifier: StoreFixture.passType, status: 200, reason: nil, apnsID: nil,
                    latencyMilliseconds: 1, createdAt: start, outcome: "delivered"
                )
            }
        }
        let statements = { (entries: [OutboxSettlement.Entry], logged: Int) throws -> (Int, OutboxSettlementResult) in
            try fixture.store.withSession(.write) { session in
                let before = session.statementsRun
                let result = try session.outbox.settleOutbox(OutboxSettlement(entries: entries), now: start)
                try session.outbox.recordPushes(log(logged))
                return (session.statementsRun - before, result)
            }
        }
        let (small, smallResult) = try statements(Array(entries.prefix(3)), 3)
        let (large, largeResult) = try statements(Array(entries.dropFirst(3)), 300)
        #expect(smallResult.deleted == 1 && smallResult.updated == 2 && smallResult.missing == 0)
        #expect(largeResult.deleted == 100 && largeResult.updated == 200 && largeResult.missing == 0)
        #expect(small == 4)
        #expect(large == small)
        #expect(try fixture.store.withSession(.read) { try $0.outbox.outboxCounts(now: start) } == OutboxCounts(pending: 101, inFlight: 0, failed: 101))
        let logged = try fixture.store.withSession(.read) { try $0.execute("SELECT count(*) AS n FROM push_log").first?.int("n") }
        #expect(logged == 303)
    }

    @Test("push log entries go in with one insert, hostile text intact", arguments: Backend.allCases)
    func recordPushes(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date(timeIntervalSince1970: 1_800_000_000.5)
        let hostile = "quote\" backslash\\ newline\n tab\t bell\u{7} 'single' — ünïcødé 🎫"
        let entries = (0..<300).map { (index: Int) -> PushLogEntry in
            let even = index % 2 == 0
            let reason: String? = index == 7 ? hostile : nil
            let apnsID: String? = even ? "id-\(index)" : nil
            return PushLogEntry(
                tokenHash: "hash\(index % 3)", passTypeIdentifier: "pass.example", status: even ? 200 : 0,
                reason: reason, apnsID: apnsID, latencyMilliseconds: Int64(index),
                createdAt: now, outcome: even ? "delivered" : "retried"
            )
        }
        try fixture.store.withSession(.write) { try $0.outbox.recordPushes(entries) }
        let stored = try fixture.store.withSession(.read) { try $0.outbox.latestPushes(tokenHashes: ["hash0", "hash1", "hash2"], limit: 1_000) }
        #expect(stored.count == 300)
        #expect(Set(stored.map(\.latencyMilliseconds)) == Set((0..<300).map(Int64.init)))
        let seventh = try #require(stored.first { $0.latencyMilliseconds == 7 })
        #expect(seventh == entries[7])
        #expect(stored.first { $0.latencyMilliseconds == 8 } == entries[8])
    }
}

import APNs
import Foundation
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The engine's bookkeeping decisions for a batch of answers, without sockets or a database.
@Suite("Outbox batch: bookkeeping decisions", .offCooperativePool)
struct OutboxBatchTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let policy = PushPolicy(maxRetryAge: 3_600, baseDelay: 1, maxDelay: 300)

    func answer(_ token: String, _ outcome: PushPolicy.Outcome, id: Int64, type: String = "pass.a", attempts: Int = 0)
        -> OutboxAnswer<OutboxRow, PushDelivery>
    {
        let row = OutboxRow(id: id, pushToken: .fixture(token), passTypeIdentifier: "\(type)", generation: 7, attempts: attempts, firstEnqueuedAt: now)
        return OutboxAnswer(row: row, answer: PushDelivery(outcome: outcome, apnsID: nil), latency: .milliseconds(3))
    }

    func batch(_ answers: [OutboxAnswer<OutboxRow, PushDelivery>]) -> OutboxBatch<PushChannel> {
        OutboxBatch<PushChannel>(answers, policy: policy, haltPause: 300, now: now, random: { 0.5 })
    }

    @Test("every answer of the reply table becomes its settlement, effect, log word and label")
    func replyTable() throws {
        let stamp = now.addingTimeInterval(-5)
        let result = batch([
            answer("a1", .answered(status: 200, reason: nil, timestamp: nil), id: 1),
            answer("a2", .answered(status: 410, reason: .unregistered, timestamp: stamp), id: 2),
            answer("a3", .answered(status: 429, reason: .tooManyRequests, timestamp: nil), id: 3, attempts: 2),
            answer("a4", .answered(status: 400, reason: .badPriority, timestamp: nil), id: 4),
            answer("a5", .transportFailure("connection lost"), id: 5),
            answer("a6", .answered(status: 400, reason: .deviceTokenNotForTopic, timestamp: nil), id: 6),
        ])
        #expect(result.halt == nil)
        #expect(result.accepted)
        #expect(result.settlement.entries == [
            .init(id: 1, generation: 7, change: .completed),
            .init(id: 2, generation: 7, change: .completed),
            // Third attempt: up to 4 s with full jitter; 0.5 is halfway from 0.5 s.
            .init(id: 3, generation: 7, change: .retry(nextAttempt: now.addingTimeInterval(2.25), status: 429, reason: "TooManyRequests")),
            .init(id: 4, generation: 7, change: .failed(status: 400, reason: "APNs refused the request: 400 BadPriority")),
            .init(id: 5, generation: 7, change: .retry(nextAttempt: now.addingTimeInterval(0.75), status: 0, reason: "connection lost")),
            .init(id: 6, generation: 7, change: .completed),
        ])
        #expect(result.effects.map(\.effect) == [
            PushPrune(reason: .unregistered, unlessRenewedAfter: stamp), PushPrune(reason: .deviceTokenNotForTopic, unlessRenewedAfter: nil),
        ])
        #expect(result.effects.map(\.row.id) == [2, 6])
        #expect(result.outcomes == ["delivered": 1, "pruned": 2, "retried": 2, "failed": 1])
        #expect(result.items.map(\.decision.label) == [nil, "Unregistered", nil, "BadPriority", nil, "DeviceTokenNotForTopic"])
        #expect(result.items.map(\.decision.rejected) == [false, false, false, true, false, false])
    }

    @Test("a refusal of our credentials halts: the row is kept for after the pause, nothing counts as accepted")
    func halt() {
        let result = batch([
            answer("h1", .answered(status: 403, reason: .badCertificate, timestamp: nil), id: 1),
            answer("h2", .answered(status: 400, reason: .badTopic, timestamp: nil), id: 2),
        ])
        #expect(result.halt == "403 BadCertificate")
        #expect(!result.accepted)
        #expect(result.settlement.entries.map(\.change) == [
            .retry(nextAttempt: now.addingTimeInterval(300), status: 403, reason: "BadCertificate"),
            .retry(nextAttempt: now.addingTimeInterval(300), status: 400, reason: "BadTopic"),
        ])
        #expect(result.outcomes == ["halted": 2])
    }

    @Test("rows are settled in lock order: push token, then pass type, byte by byte")
    func lockOrder() {
        let result = batch([
            answer("b", .answered(status: 200, reason: nil, timestamp: nil), id: 1, type: "pass.b"),
            answer("a", .answered(status: 200, reason: nil, timestamp: nil), id: 2),
            answer("B", .answered(status: 200, reason: nil, timestamp: nil), id: 3),
            answer("b", .answered(status: 200, reason: nil, timestamp: nil), id: 4, type: "pass.a"),
            answer("ab", .answered(status: 200, reason: nil, timestamp: nil), id: 5),
        ])
        // "B" (0x42) sorts before "a" (0x61) bytewise, whatever a locale would say.
        #expect(result.settlement.entries.map(\.id) == [3, 2, 5, 4, 1])
        #expect(result.items.map(\.row.id) == [3, 2, 5, 4, 1])
    }

    @Test("a push only logged (APNS_MODE=log) completes without counting as accepted")
    func logged() {
        let result = batch([answer("l1", .logged, id: 1)])
        #expect(result.settlement.entries.map(\.change) == [.completed])
        #expect(!result.accepted)
        #expect(result.outcomes == ["logged": 1])
    }
}

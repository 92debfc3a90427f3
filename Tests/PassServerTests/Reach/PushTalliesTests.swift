import APNs
import Foundation
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// What a batch of answers settled in bulk tells the tallies of the pushes' events and jobs.
@Suite("Push tallies: outcomes settled in bulk", .offCooperativePool)
struct PushTalliesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let policy = PushPolicy(maxRetryAge: 3_600, baseDelay: 1, maxDelay: 300)

    func answer(_ id: Int64, _ outcome: PushPolicy.Outcome, event: String? = "E", job: String? = "J")
        -> OutboxAnswer<OutboxRow, PushDelivery>
    {
        var row = OutboxRow(id: id, pushToken: .fixture("t\(id)"), passTypeIdentifier: "pass.a", generation: 1, attempts: 0, firstEnqueuedAt: now)
        row.eventID = event
        row.jobID = job
        return OutboxAnswer(row: row, answer: PushDelivery(outcome: outcome, apnsID: nil), latency: .milliseconds(2))
    }

    @Test("delivered and pruned rows that left the outbox stop counting as pending; failures count once; retries and halts change nothing")
    func changes() {
        let ok = PushPolicy.Outcome.answered(status: 200, reason: nil, timestamp: nil)
        let batch = OutboxBatch<PushChannel>([
            answer(1, ok),
            // Delivered, but a newer change kept the row: still pending.
            answer(2, ok),
            answer(3, .answered(status: 410, reason: .unregistered, timestamp: now)),
            answer(4, .answered(status: 400, reason: .badPriority, timestamp: nil)),
            answer(5, .answered(status: 503, reason: .serviceUnavailable, timestamp: nil)),
            answer(6, .answered(status: 403, reason: .badCertificate, timestamp: nil)),
            // A single ticket's change (no job), and a row enqueued before events were recorded.
            answer(7, ok, job: nil),
            answer(8, ok, event: nil, job: nil),
        ], policy: policy, haltPause: 300, now: now, random: { 0.5 })
        let tallies = PushTallies(batch, deleted: [1, 3, 7, 8])
        #expect(tallies.changes == [
            TallyChange(eventID: "E", jobID: nil, change: Tally(pushesPending: -1, pushesDelivered: 1)),
            // 1 and 2 delivered (only 1 left), 3 pruned (left, failed), 4 failed for good (its row's
            // move to `failed` is tallied by the database).
            TallyChange(eventID: "E", jobID: "J", change: Tally(pushesPending: -2, pushesFailed: 2, pushesDelivered: 2)),
        ])
    }
}

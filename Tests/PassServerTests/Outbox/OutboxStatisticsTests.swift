import PassServerTesting
import Testing

@testable import PassServer

/// The engine's one outcome type and one counter type, as every channel uses them.
@Suite("Outbox outcomes and statistics", .offCooperativePool)
struct OutboxStatisticsTests {
    @Test("each outcome keeps the word the push log and the metrics' outcome label have always said")
    func words() {
        #expect(OutboxOutcomeKind.allCases.map(\.rawValue) == [
            "delivered", "sent", "synced", "logged", "pruned", "retried", "deferred", "held", "not_sent", "skipped", "halted", "blocked", "failed",
        ])
        #expect(OutboxOutcome<Never>.failed(reason: "gave_up").kind == .failed && OutboxOutcome<Never>.failed(reason: "gave_up").label == "gave_up")
        #expect(OutboxOutcome.applied(PushPrune(reason: .unregistered, unlessRenewedAfter: nil)).label == "Unregistered")
        #expect(OutboxOutcome<Never>.delivered.label == nil)
    }

    @Test("counting by outcome, failures also by label, and adding totals together")
    func counting() {
        var batch = OutboxStatistics()
        for outcome: OutboxOutcome<Never> in [.sent, .sent, .retried, .failed(reason: "rejected"), .failed(reason: "gave_up"), .failed(reason: "rejected"), .notSent] {
            batch.count(outcome)
        }
        #expect(batch.sent == 2 && batch.retried == 1 && batch.failed == 3 && batch[.notSent] == 1)
        #expect(batch.delivered == 0, "a mail's sent is not a push's delivered")
        #expect(batch.failedByReason == ["rejected": 2, "gave_up": 1])
        var total = OutboxStatistics()
        total.transportFailures = 4
        total.registrationsPruned = ["Unregistered": 1]
        total.add(batch)
        total.add(batch)
        #expect(total.sent == 4 && total.failed == 6 && total.failedByReason == ["rejected": 4, "gave_up": 2])
        #expect(total.transportFailures == 4 && total.registrationsPruned == ["Unregistered": 1])
    }

    @Test("the webhook metrics list their outcomes in the order they always had")
    func webhookOrder() {
        #expect(WebhookChannel.outcomes.map(\.rawValue) == ["delivered", "retried", "deferred", "held", "not_sent", "blocked", "failed"])
    }
}

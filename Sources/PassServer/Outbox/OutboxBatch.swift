import Foundation
import Storage

/// The bookkeeping of a set of answers, decided before any database work: pure, so the rules are
/// tested without sockets or a database.
///
/// Rows are taken in lock order (`OutboxItem.locksBefore`), so the transaction that records them
/// locks rows in the same order as one that enqueues changes, and the two never deadlock.
struct OutboxBatch<Channel: OutboxChannel>: Sendable {
    typealias Answer = Channel.Policy.Answer
    typealias Effect = Channel.Policy.Effect

    struct Item: Sendable {
        var row: Channel.Row
        var answer: Answer
        var latency: Duration
        var decision: OutboxDecision<Effect>
    }

    /// Every answer with its decision, in lock order.
    var items: [Item]
    /// What becomes of the rows.
    var settlement: OutboxSettlement
    /// The first halting answer, if any.
    var halt: String?
    /// Whether some answer shows the far end accepts our messages.
    var accepted: Bool

    /// Decides every answer with `policy`. A halting answer reschedules its row after `haltPause`.
    init(
        _ answers: [OutboxAnswer<Channel.Row, Answer>], policy: Channel.Policy, haltPause: TimeInterval, now: Date,
        random: () -> Double = { Double.random(in: 0..<1) }
    ) {
        let ordered = answers.sorted { Channel.Row.locksBefore($0.row, $1.row) }
        var items: [Item] = []
        items.reserveCapacity(ordered.count)
        var entries: [OutboxSettlement.Entry] = []
        entries.reserveCapacity(ordered.count)
        var halt: String?
        var accepted = false
        for answer in ordered {
            let row = answer.row
            let decision = policy.decide(answer.answer, attempts: row.attempts + 1, enqueuedAt: row.firstEnqueuedAt, now: now, random: random())
            let change: OutboxSettlement.Change
            switch decision.settlement {
            case .completed:
                change = .completed
            case .retry(let delay):
                change = .retry(nextAttempt: now.addingTimeInterval(delay), status: decision.status, reason: decision.reason)
            case .failed(let reason):
                change = .failed(status: decision.status, reason: String(reason.prefix(200)))
            case .halt(let why):
                change = .retry(nextAttempt: now.addingTimeInterval(haltPause), status: decision.status, reason: decision.reason)
                if halt == nil { halt = why }
            }
            accepted = accepted || decision.accepted
            entries.append(OutboxSettlement.Entry(id: row.id, generation: row.generation, change: change))
            items.append(Item(row: row, answer: answer.answer, latency: answer.latency, decision: decision))
        }
        self.items = items
        self.settlement = OutboxSettlement(entries: entries)
        self.halt = halt
        self.accepted = accepted
    }

    /// The effects the outcomes apply, in lock order.
    var effects: [(row: Channel.Row, effect: Effect)] {
        items.compactMap { item in item.decision.result.effect.map { (item.row, $0) } }
    }

    /// The batch's answers counted by outcome, for the channel's `OutboxStatistics`.
    var statistics: OutboxStatistics {
        items.reduce(into: OutboxStatistics()) { $0.count($1.decision.result) }
    }

    /// How many answers ended in each outcome, by its word (for logs and tests).
    var outcomes: [String: Int] {
        statistics.counts.reduce(into: [:]) { $0[$1.key.rawValue] = $1.value }
    }
}

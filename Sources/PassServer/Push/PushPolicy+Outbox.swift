import APNs
import Foundation

/// What the bookkeeping does for a dead or foreign push token: delete that token's registrations
/// for the pass type, except those renewed after `unlessRenewedAfter` (APNs's 410 timestamp).
/// Its outcome is `pruned`, labelled with APNs's reason.
struct PushPrune: OutboxEffect {
    var reason: APNSReason
    var unlessRenewedAfter: Date?

    var kind: OutboxOutcomeKind { .pruned }
    var label: String { reason.metricLabel }
}

extension PushPolicy: OutboxPolicy {
    /// The reply table as the outbox engine's policy: `action(for:…)` decides, this maps the
    /// action onto the engine's settlements.
    func decide(_ delivery: PushDelivery, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> OutboxDecision<PushPrune> {
        let action = action(for: delivery.outcome, attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random)
        let (status, reason) = delivery.outcome.recorded
        var decision = OutboxDecision<PushPrune>(settlement: .completed, status: status, reason: reason, result: action.outcome)
        switch action {
        case .delivered:
            decision.accepted = true
        case .logged, .prune:
            // A prune is the outcome's effect (`OutboxOutcome.applied`).
            break
        case .halt(let haltStatus, let haltReason):
            decision.settlement = .halt(why: "\(haltStatus) \(haltReason?.rawValue ?? "without a reason")")
        case .retry(let delay):
            decision.settlement = .retry(after: delay)
        case .fail(let failure):
            decision.settlement = .failed(reason: failure.description)
            if case .rejected = failure { decision.rejected = true }
        }
        return decision
    }
}

extension PushPolicy.Outcome {
    /// Status and reason for the log: status 0 when APNs never answered (or nothing was sent).
    var recorded: (status: Int, reason: String?) {
        switch self {
        case .answered(let status, let reason, _): (status, reason?.rawValue)
        case .unreachable(let message), .transportFailure(let message): (0, String(message.prefix(200)))
        case .logged: (0, nil)
        }
    }

    /// Whether APNs never answered: a connection or TLS failure, a lost connection, a timeout.
    var isNeverAnswered: Bool {
        switch self {
        case .unreachable, .transportFailure: true
        case .answered, .logged: false
        }
    }
}

extension PushPolicy.Action {
    /// What the log and the counters keep of it; a prune carries its effect.
    var outcome: OutboxOutcome<PushPrune> {
        switch self {
        case .delivered: .delivered
        case .logged: .logged
        case .prune(let why, let cutoff): .applied(PushPrune(reason: why, unlessRenewedAfter: cutoff))
        case .halt: .halted
        case .retry: .retried
        case .fail(let failure): .failed(reason: failure.metricLabel)
        }
    }
}

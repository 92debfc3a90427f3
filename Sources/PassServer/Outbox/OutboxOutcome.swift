/// What became of one answer, as the log keeps it and the counters count it: one case per outcome
/// of any channel, a failure with its bounded label, or the channel's own effect. Policies decide
/// it, the engine's batch counts it (`OutboxStatistics`), channels switch over it; its word
/// (`kind.rawValue`) is what the logs, the push log's `outcome` column and the metrics' `outcome`
/// label say.
///
/// Generic over the channel's effect (`OutboxPolicy.Effect`; `Never` for a channel without one), so
/// an effect rides on its outcome: an answer cannot be counted as one thing and do another.
enum OutboxOutcome<Effect: OutboxEffect>: Sendable, Equatable {
    /// The far end took the message: a push or a webhook delivery.
    case delivered
    /// The SMTP server took the email.
    case sent
    /// Google brought the class or object up to date.
    case synced
    /// Not sent, only logged (`APNS_MODE=log`).
    case logged
    /// The channel's own work for this answer, done in the transaction that settles its row
    /// (pushes: `PushPrune`, a dead or foreign token's registrations pruned). The effect names the
    /// outcome's kind (`pruned`) and label (APNs's reason).
    case applied(Effect)
    /// Sent again later, after the policy's backoff.
    case retried
    /// Not sent now (a claim ran out, the sender stopped, the endpoint just failed): tried again soon.
    case deferred
    /// Kept until its webhook endpoint is enabled again.
    case held
    /// A webhook the sender did not send (its lane was full or shutting down).
    case notSent
    /// Nothing to send any more (Google: the event or ticket is gone).
    case skipped
    /// Our own credentials or configuration were refused: all sending paused.
    case halted
    /// A webhook's target address is not allowed.
    case blocked
    /// Given up on (`reason`: a bounded label for counters, such as `gave_up` or APNs's reason).
    case failed(reason: String)

    var kind: OutboxOutcomeKind {
        switch self {
        case .delivered: .delivered
        case .sent: .sent
        case .synced: .synced
        case .logged: .logged
        case .applied(let effect): effect.kind
        case .retried: .retried
        case .deferred: .deferred
        case .held: .held
        case .notSent: .notSent
        case .skipped: .skipped
        case .halted: .halted
        case .blocked: .blocked
        case .failed: .failed
        }
    }

    /// The bounded label of an effect or a failure.
    var label: String? {
        switch self {
        case .applied(let effect): effect.label
        case .failed(let reason): reason
        default: nil
        }
    }

    /// The effect this outcome applies, if any.
    var effect: Effect? {
        if case .applied(let effect) = self { effect } else { nil }
    }
}

/// An outcome without its label or effect: what the counters are keyed by, the same for every
/// channel.
enum OutboxOutcomeKind: String, Sendable, CaseIterable {
    case delivered, sent, synced, logged, pruned, retried, deferred, held
    case notSent = "not_sent"
    case skipped, halted, blocked, failed
}

/// A channel's own work for an answer besides settling its row (pushes: `PushPrune`), carried by
/// its outcome (`OutboxOutcome.applied`). It says what the counters and the log call that outcome.
protocol OutboxEffect: Sendable, Equatable {
    /// The outcome's kind (pushes: `pruned`).
    var kind: OutboxOutcomeKind { get }
    /// A bounded label for counters and the log (pushes: APNs's reason).
    var label: String { get }
}

/// The effect of a channel that has none: `applied` cannot be built, and switches need not name it.
extension Never: OutboxEffect {
    var kind: OutboxOutcomeKind { switch self {} }
    var label: String { switch self {} }
}

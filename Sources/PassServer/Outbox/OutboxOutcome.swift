/// What became of one answer, as the log keeps it and the counters count it: one case per outcome
/// of any channel, a failure or a prune with its bounded label. Policies decide it, the engine's
/// batch counts it (`OutboxStatistics`), channels switch over it; its word (`kind.rawValue`) is
/// what the logs, the push log's `outcome` column and the metrics' `outcome` label say.
enum OutboxOutcome: Sendable, Equatable {
    /// The far end took the message: a push or a webhook delivery.
    case delivered
    /// The SMTP server took the email.
    case sent
    /// Google brought the class or object up to date.
    case synced
    /// Not sent, only logged (`APNS_MODE=log`).
    case logged
    /// The push token is dead or foreign: its registrations are pruned (`reason`: APNs's, as a label).
    case pruned(reason: String)
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

    /// The outcome without its label: what the counters are keyed by.
    enum Kind: String, Sendable, CaseIterable {
        case delivered, sent, synced, logged, pruned, retried, deferred, held
        case notSent = "not_sent"
        case skipped, halted, blocked, failed
    }

    var kind: Kind {
        switch self {
        case .delivered: .delivered
        case .sent: .sent
        case .synced: .synced
        case .logged: .logged
        case .pruned: .pruned
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

    /// The bounded label of a prune or a failure.
    var label: String? {
        switch self {
        case .pruned(let reason), .failed(let reason): reason
        default: nil
        }
    }
}

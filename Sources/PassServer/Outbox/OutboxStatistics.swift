/// What one outbox counted since start, the same type for every channel: answers by outcome
/// (`count`, done by the engine's batch), failures by label, and the few counts one channel adds
/// from what it recorded (pushes: registrations pruned, sends never answered; Google: updates that
/// notified the holder). Read by metrics and the admin API through each channel's names below.
struct OutboxStatistics: Sendable, Equatable {
    private(set) var counts: [OutboxOutcomeKind: Int] = [:]
    /// Rows given up on, by label (`OutboxOutcome.failed`).
    private(set) var failedByReason: [String: Int] = [:]
    /// Registrations deleted after pushes' answers, by APNs's reason (`APNSReason.metricLabel`).
    var registrationsPruned: [String: Int] = [:]
    /// Sends the far end never answered (pushes: connection or TLS failure, connection lost, timeout).
    var transportFailures = 0
    /// Synced Google updates that asked Google to notify the holder.
    var notified = 0

    /// Counts one answer's outcome.
    mutating func count<Effect>(_ outcome: OutboxOutcome<Effect>) {
        counts[outcome.kind, default: 0] += 1
        if case .failed(let reason) = outcome { failedByReason[reason, default: 0] += 1 }
    }

    mutating func add(_ other: OutboxStatistics) {
        counts.merge(other.counts, uniquingKeysWith: +)
        failedByReason.merge(other.failedByReason, uniquingKeysWith: +)
        registrationsPruned.merge(other.registrationsPruned, uniquingKeysWith: +)
        transportFailures += other.transportFailures
        notified += other.notified
    }

    /// Answers that ended in `kind`.
    subscript(kind: OutboxOutcomeKind) -> Int { counts[kind] ?? 0 }

    var delivered: Int { self[.delivered] }
    var sent: Int { self[.sent] }
    var synced: Int { self[.synced] }
    var logged: Int { self[.logged] }
    var pruned: Int { self[.pruned] }
    var retried: Int { self[.retried] }
    var deferred: Int { self[.deferred] }
    var halted: Int { self[.halted] }
    var skipped: Int { self[.skipped] }
    var failed: Int { self[.failed] }
}

import APNs
import Certificates
import Foundation
import Logging
import Storage
import Synchronization
import SystemSupport

/// Pushes as an outbox channel: `push_outbox` rows, APNs (or the log) as the sender, the APNs reply
/// table (`PushPolicy`) as the policy. Records each batch in one transaction: the rows' settlement
/// (`StoreSession.outbox.settleOutbox`), the prunes of dead tokens, one multi-row insert into `push_log`,
/// and one into the tally changes of the pushes' events and jobs (`PushTallies`). Keeps the counters and APNs's reachability for metrics and `/readyz`.
final class PushChannel: OutboxChannel {
    let store: any Store
    let sender: PushSender
    let policy: PushPolicy
    let readiness: Readiness
    let logger: Logger
    let unreachableGrace: TimeInterval
    /// The push service whose rows this channel claims: APNs, or the Android wallet relay.
    let service: PushService
    /// Counters and reachability: written by the dispatcher's thread, read by metrics and `/readyz`.
    let status = Mutex(Status())

    struct Status: Sendable {
        var statistics = OutboxStatistics()
        var reachability = Reachability()
    }

    init(
        store: any Store, sender: PushSender, policy: PushPolicy, readiness: Readiness, logger: Logger, unreachableGrace: TimeInterval,
        service: PushService = .apns
    ) {
        self.store = store
        self.sender = sender
        self.policy = policy
        self.readiness = readiness
        self.logger = logger
        self.unreachableGrace = unreachableGrace
        self.service = service
    }

    var outboxSender: PushSender { sender }

    /// How logs and `/readyz` name the far end.
    var remote: String { service == .apns ? "APNs" : "the push relay" }
    /// The `/readyz` component.
    var component: String { service == .apns ? "apns" : "push_relay" }

    func claim(limit: Int, now: Date, lease: Duration) throws -> [OutboxRow] {
        try store.withSession(.write) { try $0.outbox.claimOutbox(limit: limit, now: now, lease: lease, service: service) }
    }

    func message(for row: OutboxRow) -> APNSRequest {
        APNSRequest(pushToken: row.pushToken, topic: row.passTypeIdentifier)
    }

    /// Registrations pruned, by APNs's reason.
    func record(_ batch: OutboxBatch<PushChannel>, now: Date) throws -> [String: Int] {
        var pruned: [String: Int] = [:]
        try store.transaction { session in
            // Lock order: the outbox rows first (settling locks them, in the order enqueueing
            // does), then the registrations of dead tokens (in primary-key order, as a re-push
            // batch locks the registrations it gives a new revision), then append-only writes.
            let settled = try session.outbox.settleOutbox(batch.settlement, now: now)
            let prunes = batch.effects
            if !prunes.isEmpty {
                try session.registrations.lockRegistrations(pushTokens: prunes.map(\.row.pushToken))
            }
            for item in batch.items {
                guard let prune = item.decision.result.effect else { continue }
                let row = item.row
                let removed = try session.registrations.pruneRegistrations(
                    pushToken: row.pushToken, passTypeIdentifier: row.passTypeIdentifier, unlessUpdatedAfter: prune.unlessRenewedAfter,
                    record: RegistrationPrune(
                        tokenHash: try PushDispatcher.tokenHash(row.pushToken), status: item.decision.status, reason: prune.reason.rawValue, prunedAt: now
                    )
                )
                if removed > 0 { pruned[prune.reason.metricLabel, default: 0] += removed }
            }
            try session.outbox.recordPushes(batch.items.map { item in
                PushLogEntry(
                    tokenHash: try PushDispatcher.tokenHash(item.row.pushToken), passTypeIdentifier: item.row.passTypeIdentifier,
                    status: item.decision.status, reason: item.decision.reason, apnsID: item.answer.apnsID,
                    latencyMilliseconds: item.latency.milliseconds, createdAt: now, outcome: item.decision.outcome
                )
            })
            // What the events' and jobs' tallies learn: pushes delivered, failed, and left the outbox.
            try session.reach.appendTallyChanges(PushTallies(batch, deleted: settled.deletedIDs).changes)
        }
        return pruned
    }

    func recorded(_ batch: OutboxBatch<PushChannel>, receipt pruned: [String: Int]?, now: Date) {
        // A send APNs never answered happened whatever became of the transaction.
        var statistics = OutboxStatistics()
        statistics.transportFailures = batch.items.count { $0.answer.outcome.isNeverAnswered }
        if let pruned {
            statistics.add(batch.statistics)
            statistics.registrationsPruned = pruned
            let rejected = batch.items.filter(\.decision.rejected).reduce(into: [String: Int]()) { counts, item in
                counts["\(item.decision.status) \(item.decision.reason ?? "without a reason")", default: 0] += 1
            }
            for (answer, count) in rejected.sorted(by: { $0.key < $1.key }) {
                logger.error("\(remote) refused pushes as malformed; rows marked failed", ["apns.answer": answer, "count": "\(count)"])
            }
            if !pruned.isEmpty {
                logger.info("registrations pruned after APNs answers", pruned.mapValues { "\($0)" })
            }
        }
        let changes = status.withLock { status in
            status.statistics.add(statistics)
            return batch.items.compactMap { status.reachability.observe($0.answer.outcome, at: now) }
        }
        for change in changes {
            switch change {
            case .becameUnreachable:
                logger.warning("\(remote) unreachable; pushes are retried", ["grace_s": "\(Int(unreachableGrace))"])
            case .recovered(let duration):
                logger.notice("\(remote) reachable again", ["unreachable_s": "\(Int(duration))"])
            }
        }
    }

    func halted(why answer: String, until: Date, pause: TimeInterval) {
        logger.critical("\(remote) refused our credentials or topic; all its sending paused", ["apns.answer": answer, "retry_in_s": "\(Int(pause))"])
        readiness.report(component, problem: "sending halted: \(remote) answered \(answer) (credentials or topic); one probe push at \(ISODate.format(until))")
    }

    func resumed() {
        logger.notice("\(remote) accepts pushes again; sending resumed")
        readiness.report(component, problem: nil)
    }
}

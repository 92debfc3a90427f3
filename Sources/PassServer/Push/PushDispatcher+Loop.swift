import APNs
import Certificates
import Foundation
import Logging
import Storage

extension PushDispatcher {
    /// The loop thread: record answers, claim due rows while there is room, sleep until woken.
    ///
    /// While the database is unavailable the loop keeps the answers it could not record and
    /// retries with backoff (`DatabaseOutage`), claiming nothing; once it is back the answers are
    /// recorded first, so no push is sent again for lack of a record, and claiming resumes.
    func loop() {
        var drainDeadline: Date?
        var unrecorded: [Completion] = []
        while true {
            let (completed, stopping, inFlight, halted, retryAt) = state.withLock { state in
                defer { state.completed.removeAll(keepingCapacity: true) }
                let halted = state.haltedUntil.map { $0 > now() } ?? false
                return (state.completed, state.stopping, state.inFlight, halted, state.databaseRetryAt)
            }
            unrecorded += completed
            let waitingForDatabase = retryAt.map { $0 > now() } ?? false
            if !unrecorded.isEmpty && !waitingForDatabase {
                if record(unrecorded) { unrecorded.removeAll() }
                continue
            }
            if stopping {
                let deadline = drainDeadline ?? now().addingTimeInterval(settings.drainTimeout)
                drainDeadline = deadline
                if inFlight == 0 || now() >= deadline {
                    if inFlight > 0 { logger.warning("stopping with pushes in flight; they are retried after their lease", ["count": "\(inFlight)"]) }
                    return
                }
                sleep(until: min(retryAt ?? .distantFuture, now().addingTimeInterval(0.05)))
                continue
            }
            if !waitingForDatabase, inFlight < settings.maxInFlight, claim(room: settings.maxInFlight - inFlight, probeOnly: halted) > 0 {
                continue
            }
            let retry = state.withLock { $0.databaseRetryAt }
            sleep(until: min(retry ?? .distantFuture, now().addingTimeInterval(settings.pollInterval)))
        }
    }

    /// Claims and hands out up to `room` rows. Once a halt's pause is over, a single probe goes out
    /// and nothing more until its answer has been recorded (which resumes or halts again).
    private func claim(room: Int, probeOnly halted: Bool) -> Int {
        if halted { return 0 }
        let (probing, inFlight) = state.withLock { ($0.haltedUntil != nil, $0.inFlight) }
        if probing && inFlight > 0 { return 0 }
        let limit = probing ? 1 : min(room, settings.batchSize)
        let claimed: [OutboxRow]
        do {
            claimed = try store.claimOutbox(limit: limit, now: now(), lease: settings.lease)
            databaseAnswered()
        } catch where DatabaseOutage.isOutage(error) {
            databaseFailed(error)
            return 0
        } catch {
            logger.error("cannot claim pushes", ["error": "\(error)"])
            sleep(until: now().addingTimeInterval(settings.pollInterval))
            return 0
        }
        guard !claimed.isEmpty else { return 0 }
        state.withLock { $0.inFlight += claimed.count }
        for row in claimed { enqueueForSending(row) }
        return claimed.count
    }

    /// Applies the reply table to answered pushes in one transaction. Returns false when the
    /// database is unavailable: the caller keeps the answers and tries again later.
    ///
    /// Lock order: every outbox row first (in `OutboxRow.locksBefore` order, as enqueueing locks
    /// them), then the registrations to prune (in primary-key order, as a re-push batch locks the
    /// registrations it gives a new revision), then appends only (push log, tally changes).
    private func record(_ completions: [Completion]) -> Bool {
        let time = now()
        // A send APNs never answered happened whatever becomes of the transaction below.
        let transportFailures = completions.count { $0.delivery.outcome.isNeverAnswered }
        var statistics = Statistics(transportFailures: transportFailures)
        var halt: (status: Int, reason: APNSReason?)?
        var delivered = false
        var rejected: [String: Int] = [:]
        do {
            try store.transaction { session in
                var prunes: [(row: OutboxRow, why: APNSReason, cutoff: Date?, status: Int)] = []
                var entries: [PushLogEntry] = []
                var tallies = PushTallies()
                for completion in completions.sorted(by: { OutboxRow.locksBefore($0.row, $1.row) }) {
                    let row = completion.row
                    let outcome = completion.delivery.outcome
                    let action = policy.action(
                        for: outcome, attempts: row.attempts + 1, enqueuedAt: row.firstEnqueuedAt, now: time,
                        random: Double.random(in: 0..<1)
                    )
                    let (status, reason) = outcome.recorded
                    switch action {
                    case .delivered:
                        tallies.finished(row, removed: try session.completeOutbox(row, now: time), delivered: true)
                        statistics.delivered += 1
                        delivered = true
                    case .logged:
                        tallies.finished(row, removed: try session.completeOutbox(row, now: time))
                        statistics.logged += 1
                    case .prune(let why, let cutoff):
                        tallies.finished(row, removed: try session.completeOutbox(row, now: time), failed: true)
                        prunes.append((row, why, cutoff, status))
                        statistics.pruned += 1
                    case .halt(let haltStatus, let haltReason):
                        try session.rescheduleOutbox(row, nextAttempt: time.addingTimeInterval(settings.haltPause), status: status, reason: reason)
                        statistics.halted += 1
                        halt = (haltStatus, haltReason)
                    case .retry(let delay):
                        try session.rescheduleOutbox(row, nextAttempt: time.addingTimeInterval(delay), status: status, reason: reason)
                        statistics.retried += 1
                    case .fail(let failure):
                        // The row's own move from pending to failed is tallied by the database.
                        try session.failOutbox(row, status: status, reason: String(failure.description.prefix(200)), now: time)
                        tallies.finished(row, removed: false, failed: true)
                        statistics.failedByReason[failure.metricLabel, default: 0] += 1
                        if case .rejected = failure { rejected["\(status) \(reason ?? "without a reason")", default: 0] += 1 }
                    }
                    entries.append(PushLogEntry(
                        tokenHash: try Self.tokenHash(row.pushToken), passTypeIdentifier: row.passTypeIdentifier,
                        status: status, reason: reason, apnsID: completion.delivery.apnsID,
                        latencyMilliseconds: Self.milliseconds(completion.latency), createdAt: time, outcome: action.name
                    ))
                }
                if !prunes.isEmpty {
                    try session.lockRegistrations(pushTokens: prunes.map(\.row.pushToken))
                }
                for prune in prunes {
                    let record = RegistrationPrune(
                        tokenHash: try Self.tokenHash(prune.row.pushToken), status: prune.status, reason: prune.why.rawValue, prunedAt: time
                    )
                    let removed = try session.pruneRegistrations(
                        pushToken: prune.row.pushToken, passTypeIdentifier: prune.row.passTypeIdentifier, unlessUpdatedAfter: prune.cutoff,
                        record: record
                    )
                    if removed > 0 { statistics.registrationsPruned[prune.why.metricLabel, default: 0] += removed }
                }
                for entry in entries { try session.recordPush(entry) }
                try session.appendTallyChanges(tallies.changes)
            }
            databaseAnswered()
        } catch where DatabaseOutage.isOutage(error) {
            databaseFailed(error)
            return false
        } catch {
            // The rows stay claimed and are sent again once their lease expires: at least once.
            logger.error("cannot record push outcomes; they will be retried", ["error": "\(error)", "count": "\(completions.count)"])
            statistics = Statistics(transportFailures: transportFailures)
            rejected = [:]
        }
        for (answer, count) in rejected.sorted(by: { $0.key < $1.key }) {
            logger.error("APNs refused pushes as malformed; rows marked failed", ["apns.answer": answer, "count": "\(count)"])
        }
        if !statistics.registrationsPruned.isEmpty {
            logger.info("registrations pruned after APNs answers", statistics.registrationsPruned.mapValues { "\($0)" })
        }
        observeReachability(completions.map(\.delivery.outcome), time: time)
        updateHalt(halt, delivered: delivered, time: time)
        state.withLock { state in
            state.inFlight -= completions.count
            state.statistics.add(statistics)
        }
        return true
    }

    /// The database answered: ends an outage (logged once).
    private func databaseAnswered() {
        let time = now()
        state.withLock { state in
            state.databaseRetryAt = nil
            state.outage.recovered(at: time, logger: logger, resumed: "database available again; push dispatch resumes")
        }
    }

    /// The database is unavailable: begins or continues an outage (logged once) and sets when to try again.
    private func databaseFailed(_ error: any Error) {
        let time = now()
        state.withLock { state in
            let delay = state.outage.failed(error, at: time, logger: logger, waiting: "database unavailable; push dispatch waits for it")
            state.databaseRetryAt = time.addingTimeInterval(delay)
        }
    }

    private func observeReachability(_ outcomes: [PushPolicy.Outcome], time: Date) {
        let changes = state.withLock { state in outcomes.compactMap { state.reachability.observe($0, at: time) } }
        for change in changes {
            switch change {
            case .becameUnreachable:
                logger.warning("APNs unreachable; pushes are retried", ["grace_s": "\(Int(settings.unreachableGrace))"])
            case .recovered(let duration):
                logger.notice("APNs reachable again", ["unreachable_s": "\(Int(duration))"])
            }
        }
    }

    private func updateHalt(_ halt: (status: Int, reason: APNSReason?)?, delivered: Bool, time: Date) {
        if let halt {
            let until = time.addingTimeInterval(settings.haltPause)
            let answer = "\(halt.status) \(halt.reason?.rawValue ?? "without a reason")"
            logger.critical("APNs refused our credentials or topic; all sending paused", ["apns.answer": answer, "retry_in_s": "\(Int(settings.haltPause))"])
            readiness.report(
                "apns",
                problem: "sending halted: APNs answered \(answer) (credentials or topic); one probe push at \(ISODate.format(until))"
            )
            state.withLock { $0.haltedUntil = until }
        } else if delivered, state.withLock({ $0.haltedUntil != nil }) {
            logger.notice("APNs accepts pushes again; sending resumed")
            readiness.report("apns", problem: nil)
            state.withLock { $0.haltedUntil = nil }
        }
    }

    private func sleep(until date: Date) {
        condition.lock()
        while !state.withLock({ $0.signalled }) {
            if !condition.wait(until: date) { break }
        }
        state.withLock { $0.signalled = false }
        condition.unlock()
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// What the push log keeps of a token: its SHA-256, never the token.
    static func tokenHash(_ pushToken: String) throws -> String {
        Hex.encode(try Digest.sha256().hash(Array(pushToken.utf8)))
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
    /// The word the push log keeps for it.
    var name: String {
        switch self {
        case .delivered: "delivered"
        case .logged: "logged"
        case .prune: "pruned"
        case .halt: "halted"
        case .retry: "retried"
        case .fail: "failed"
        }
    }
}

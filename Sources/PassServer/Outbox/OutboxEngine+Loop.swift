import Foundation
import Logging
import SystemSupport

extension OutboxEngine {
    /// The engine's thread: record answers, claim due rows while there is room, sleep until woken.
    ///
    /// While the database is unavailable the loop keeps the answers it could not record and
    /// retries with backoff (`DatabaseOutage`), claiming nothing; once it is back the answers are
    /// recorded first, so no message is sent again for lack of a record, and claiming resumes.
    final class Loop: WorkerLoop {
        let engine: OutboxEngine
        var pacing: any OutboxPacing
        /// Answers taken from the inbox and not yet recorded (kept through a database outage).
        var unrecorded: [Answer] = []
        /// Rows handed to the sender and not yet recorded.
        var inFlight = 0
        var outage = DatabaseOutage()
        /// While the database is unavailable: when to try it again.
        var databaseRetryAt: Date?
        var drainDeadline: Date?
        /// When the oldest unrecorded answer arrived (for `recordWindow`).
        var unrecordedSince: Date?

        init(engine: OutboxEngine, pacing: any OutboxPacing) {
            self.engine = engine
            self.pacing = pacing
        }

        private var settings: Settings { engine.settings }
        private var logger: Logger { engine.logger }

        func step(stopping: Bool) -> Worker.Next {
            let time = engine.now()
            unrecorded += engine.inbox.withLock { answers in
                defer { answers.removeAll(keepingCapacity: true) }
                return answers
            }
            if engine.retryDatabaseNow.exchange(false, ordering: .relaxed) { databaseRetryAt = nil }
            let waitingForDatabase = databaseRetryAt.map { $0 > time } ?? false
            if unrecorded.isEmpty { unrecordedSince = nil } else if unrecordedSince == nil { unrecordedSince = time }
            // Answers may wait up to `recordWindow` for more to record with them, while more are owed.
            var recordAt: Date?
            if !unrecorded.isEmpty && !waitingForDatabase {
                let since = unrecordedSince ?? time
                if settings.recordWindow > 0 && !stopping && unrecorded.count < settings.batchSize && inFlight > unrecorded.count
                    && time.timeIntervalSince(since) < settings.recordWindow
                {
                    recordAt = since.addingTimeInterval(settings.recordWindow)
                } else {
                    if record(unrecorded) {
                        inFlight -= unrecorded.count
                        unrecorded.removeAll(keepingCapacity: true)
                        unrecordedSince = nil
                    }
                    return .again
                }
            }
            if stopping {
                let deadline = drainDeadline ?? time.addingTimeInterval(settings.drainTimeout)
                drainDeadline = deadline
                if inFlight == 0 || time >= deadline {
                    if inFlight > 0 { logger.warning("stopping with messages in flight; they are sent again after their lease", ["count": "\(inFlight)"]) }
                    return .done
                }
                return sleep(until: min(databaseRetryAt ?? .distantFuture, time.addingTimeInterval(0.05)), now: time)
            }
            var wakeAt = time.addingTimeInterval(settings.pollInterval)
            if !waitingForDatabase {
                switch claimAndSend(time) {
                case .sent: return .again
                case .none: break
                case .heldBack(let until): wakeAt = min(wakeAt, until)
                }
            }
            return sleep(until: min(wakeAt, databaseRetryAt ?? .distantFuture, recordAt ?? .distantFuture), now: time)
        }

        /// Sleeps until `date` of the engine's clock, which may run apart from the thread's own
        /// (a test's clock moved ahead): the worker waits the same length of its own time.
        private func sleep(until date: Date, now time: Date) -> Worker.Next {
            .sleep(until: Date().addingTimeInterval(min(date.timeIntervalSince(time), 86_400)))
        }

        private enum Claimed { case sent, none, heldBack(until: Date) }

        /// Claims and sends what room, pacing and a halt allow. Once a halt's pause is over, a
        /// single probe goes out and nothing more until its answer has been recorded (which
        /// resumes sending or halts again).
        private func claimAndSend(_ time: Date) -> Claimed {
            let halted = engine.haltedUntil.withLock { $0 }
            if let halted, halted > time { return .heldBack(until: halted) }
            let probing = halted != nil
            if probing && inFlight > 0 { return .none }
            var limit = probing ? 1 : min(settings.maxInFlight - inFlight, settings.batchSize)
            if let allowance = pacing.allowance(now: time) {
                guard allowance > 0 else { return .heldBack(until: time.addingTimeInterval(pacing.recheckInterval)) }
                limit = min(limit, allowance)
            }
            guard limit > 0 else { return .none }
            let claimed: [Channel.Row]
            do {
                claimed = try engine.channel.claim(limit: limit, now: time, lease: settings.lease)
                databaseAnswered()
            } catch where DatabaseOutage.isOutage(error) {
                databaseFailed(error)
                return .none
            } catch {
                logger.error("cannot claim outbox rows", ["error": "\(error)"])
                return .heldBack(until: time.addingTimeInterval(settings.pollInterval))
            }
            guard !claimed.isEmpty else { return .none }
            inFlight += claimed.count
            pacing.sent(claimed.count, now: time)
            engine.send(claimed)
            return .sent
        }

        /// Applies the reply policy to answers in one transaction. Returns false when the database
        /// is unavailable: the caller keeps the answers and tries again later.
        private func record(_ answers: [Answer]) -> Bool {
            let time = engine.now()
            let batch = OutboxBatch<Channel>(answers, policy: engine.channel.policy, haltPause: settings.haltPause, now: time)
            let receipt: Channel.Receipt
            do {
                receipt = try engine.channel.record(batch, now: time)
                databaseAnswered()
            } catch where DatabaseOutage.isOutage(error) {
                databaseFailed(error)
                return false
            } catch {
                // The rows stay claimed and are sent again once their lease expires: at least once.
                logger.error("cannot record outbox answers; they will be sent again", ["error": "\(error)", "count": "\(answers.count)"])
                engine.channel.recorded(batch, receipt: nil, now: time)
                return true
            }
            engine.channel.recorded(batch, receipt: receipt, now: time)
            updateHalt(batch, time: time)
            return true
        }

        private func updateHalt(_ batch: OutboxBatch<Channel>, time: Date) {
            if let why = batch.halt {
                let until = time.addingTimeInterval(settings.haltPause)
                engine.haltedUntil.withLock { $0 = until }
                engine.channel.halted(why: why, until: until, pause: settings.haltPause)
            } else if batch.accepted, engine.isHalted {
                engine.haltedUntil.withLock { $0 = nil }
                engine.channel.resumed()
            }
        }

        /// The database answered: ends an outage (logged once).
        private func databaseAnswered() {
            databaseRetryAt = nil
            outage.recovered(at: engine.now(), logger: logger, resumed: "database available again; \(engine.activity) resumes")
        }

        /// The database is unavailable: begins or continues an outage (logged once) and sets when to try again.
        private func databaseFailed(_ error: any Error) {
            let time = engine.now()
            let delay = outage.failed(error, at: time, logger: logger, waiting: "database unavailable; \(engine.activity) waits for it")
            databaseRetryAt = time.addingTimeInterval(delay)
        }
    }
}

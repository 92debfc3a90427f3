package import Foundation
package import Logging
package import Storage
import SystemSupport

/// Runs jobs: claims a pending job (or one whose runner died) and works through its event's passes
/// in batches, each one transaction with its outbox rows: a re-push bumps them and enqueues pushes
/// (waking the push dispatcher after each batch), an event send queues their emails (waking the
/// mail dispatcher). Memory stays flat: only one batch is in hand at a time.
///
/// Threading: a `Worker` thread runs `Loop`, one batch per round, so a shutdown lands between
/// batches; every store call blocks there.
package final class JobRunner: Sendable {
    package struct Settings: Sendable {
        var batchSize = 500
        var lease: Duration = .seconds(60)
        var pollInterval: TimeInterval = 2

        init() {}

        package init(_ jobs: Configuration.Jobs) {
            batchSize = jobs.batchSize
            lease = .seconds(jobs.lease)
        }
    }

    private let store: any Store
    private let logger: Logger
    private let settings: Settings
    private let afterBatch: @Sendable (RepushBatch) -> Void
    private let afterEmailBatch: @Sendable (EmailBatch) -> Void
    private let now: @Sendable () -> Date
    private let worker = Worker(name: "job-runner")

    /// `afterBatch` runs on the runner thread after every committed re-push batch (wakes the push
    /// dispatcher), `afterEmailBatch` after every batch of an event send (wakes the mail dispatcher).
    package init(store: any Store, logger: Logger, settings: Settings = Settings(), now: @escaping @Sendable () -> Date = Date.init,
         afterBatch: @escaping @Sendable (RepushBatch) -> Void = { _ in },
         afterEmailBatch: @escaping @Sendable (EmailBatch) -> Void = { _ in }) {
        self.store = store
        self.logger = logger
        self.settings = settings
        self.now = now
        self.afterBatch = afterBatch
        self.afterEmailBatch = afterEmailBatch
    }

    func start() {
        worker.start(Loop(runner: self))
    }

    /// A job was created in this process: look now instead of at the next poll.
    func wake() {
        worker.wake()
    }

    /// Stops after the batch in progress (its transaction commits or rolls back as a whole).
    func shutdown() {
        worker.shutdown()
    }

    /// The runner thread's state: the job in hand and the database outage, if any.
    private final class Loop: WorkerLoop {
        let runner: JobRunner
        var outage = DatabaseOutage()
        /// The job this runner works on. Kept while the database is away, and resumed (at its
        /// cursor) as soon as it is back, rather than left to be reclaimed after its lease.
        var held: Job?

        init(runner: JobRunner) {
            self.runner = runner
        }

        func step(stopping: Bool) -> Worker.Next {
            if stopping { return .done }
            let resumed = "database available again; re-push jobs resume"
            do {
                if held == nil {
                    held = try runner.store.withSession(.write) {
                        try $0.jobs.claimJob(now: runner.now(), lease: runner.settings.lease)
                    }
                    outage.recovered(at: runner.now(), logger: runner.logger, resumed: resumed)
                    if let job = held { runner.logStart(job) }
                }
                guard let job = held else { return .sleep(until: runner.now().addingTimeInterval(runner.settings.pollInterval)) }
                let current = try runner.runBatch(job)
                outage.recovered(at: runner.now(), logger: runner.logger, resumed: resumed)
                held = current.state == .done || current.state == .failed ? nil : current
                return .again
            } catch where DatabaseOutage.isOutage(error) {
                let delay = outage.failed(error, at: runner.now(), logger: runner.logger, waiting: "database unavailable; re-push jobs wait for it")
                return .sleep(until: runner.now().addingTimeInterval(delay))
            } catch {
                runner.logger.error("job runner error", ["error": "\(error)"])
                held = nil
                return .sleep(until: runner.now().addingTimeInterval(runner.settings.pollInterval))
            }
        }
    }

    private func logStart(_ job: Job) {
        logger.info(job.isEmail ? "email job started" : "re-push job started", ["job.id": job.id, "event.id": job.eventID ?? "", "total": "\(job.total)", "done": "\(job.done)"])
    }

    /// Runs `job` batch by batch until it is done or `shouldStop` says so; returns the job as last
    /// seen. Used by `pass-server repush` in the foreground.
    package func run(_ job: Job, shouldStop: () -> Bool = { false }, progress: (Job) -> Void = { _ in }) throws -> Job {
        logStart(job)
        var current = job
        while current.state != .done && current.state != .failed && !shouldStop() {
            current = try runBatch(current)
            progress(current)
        }
        return current
    }

    /// The next batch of `job`, from its cursor (the batch reads it under the job's row lock).
    private func runBatch(_ job: Job) throws -> Job {
        if job.isEmail {
            let batch = try store.withSession(.write) {
                try $0.jobs.runEmailBatch(jobID: job.id, batchSize: settings.batchSize, now: now(), lease: settings.lease)
            }
            afterEmailBatch(batch)
            if batch.job.state == .done {
                logger.info("email job done: every ticket's email is queued", ["job.id": job.id, "queued": "\(batch.job.done)"])
            }
            return batch.job
        }
        let batch = try store.withSession(.write) {
            try $0.jobs.runRepushBatch(jobID: job.id, batchSize: settings.batchSize, now: now(), lease: settings.lease)
        }
        afterBatch(batch)
        if batch.job.state == .done {
            logger.info("re-push job done", ["job.id": job.id, "total": "\(batch.job.total)", "done": "\(batch.job.done)"])
        }
        return batch.job
    }
}

import Foundation
import Logging
import Storage
import Synchronization

/// Runs re-push jobs: claims a pending job (or one whose runner died), bumps its event's passes in
/// batches (each batch one transaction with its outbox rows) and wakes the push dispatcher after
/// each batch. Memory stays flat: only one batch is in hand at a time.
///
/// Threading: one dedicated thread; every store call blocks there.
final class JobRunner: Sendable {
    struct Settings: Sendable {
        var batchSize = 500
        var lease: Duration = .seconds(60)
        var pollInterval: TimeInterval = 2

        init() {}

        init(_ jobs: Configuration.Jobs) {
            batchSize = jobs.batchSize
            lease = .seconds(jobs.lease)
        }
    }

    private let store: any Store
    private let logger: Logger
    private let settings: Settings
    private let afterBatch: @Sendable (RepushBatch) -> Void
    private let now: @Sendable () -> Date
    private let stopping = Mutex(false)
    private let condition = SendableCondition()
    private let signalled = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    /// `afterBatch` runs on the runner thread after every committed batch (wakes the dispatcher,
    /// warms the bundle cache).
    init(store: any Store, logger: Logger, settings: Settings = Settings(), now: @escaping @Sendable () -> Date = Date.init,
         afterBatch: @escaping @Sendable (RepushBatch) -> Void = { _ in }) {
        self.store = store
        self.logger = logger
        self.settings = settings
        self.now = now
        self.afterBatch = afterBatch
    }

    func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "job-runner"
        thread.start()
    }

    /// A job was created in this process: look now instead of at the next poll.
    func wake() {
        condition.lock()
        signalled.withLock { $0 = true }
        condition.signal()
        condition.unlock()
    }

    /// Stops after the batch in progress (its transaction commits or rolls back as a whole).
    func shutdown() {
        guard started.load(ordering: .relaxed) else { return }
        stopping.withLock { $0 = true }
        wake()
        finished.wait()
        // Passed on, so a second shutdown (Application.shutdown is idempotent) returns too.
        finished.signal()
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    private func loop() {
        var outage = DatabaseOutage()
        // The job this runner works on. Kept while the database is away, and resumed (at its
        // cursor) as soon as it is back, rather than left to be reclaimed after its lease.
        var held: Job?
        let resumed = "database available again; re-push jobs resume"
        while !isStopping {
            var delay = settings.pollInterval
            do {
                if held == nil {
                    held = try store.claimJob(now: now(), lease: settings.lease)
                    outage.recovered(at: now(), logger: logger, resumed: resumed)
                    if let job = held { logStart(job) }
                }
                if let job = held {
                    _ = try runBatches(job, shouldStop: { self.isStopping }) { _ in
                        outage.recovered(at: self.now(), logger: self.logger, resumed: resumed)
                    }
                    held = nil
                    continue
                }
            } catch where DatabaseOutage.isOutage(error) {
                delay = outage.failed(error, at: now(), logger: logger, waiting: "database unavailable; re-push jobs wait for it")
            } catch {
                logger.error("job runner error", ["error": "\(error)"])
                held = nil
            }
            condition.lock()
            let deadline = Date().addingTimeInterval(delay)
            while !signalled.withLock({ $0 }) {
                if !condition.wait(until: deadline) { break }
            }
            signalled.withLock { $0 = false }
            condition.unlock()
        }
    }

    private func logStart(_ job: Job) {
        logger.info("re-push job started", ["job.id": job.id, "event.id": job.eventID ?? "", "total": "\(job.total)", "done": "\(job.done)"])
    }

    /// Runs `job` batch by batch until it is done or `shouldStop` says so; returns the job as last
    /// seen. Also used by `pass-server repush` in the foreground.
    func run(_ job: Job, shouldStop: () -> Bool = { false }, progress: (Job) -> Void = { _ in }) throws -> Job {
        logStart(job)
        return try runBatches(job, shouldStop: shouldStop, progress: progress)
    }

    /// The batches of `run`, from the job's cursor (each batch reads it under the job's row lock).
    private func runBatches(_ job: Job, shouldStop: () -> Bool, progress: (Job) -> Void = { _ in }) throws -> Job {
        var current = job
        while current.state != .done && current.state != .failed && !shouldStop() {
            let batch = try store.runRepushBatch(jobID: current.id, batchSize: settings.batchSize, now: now(), lease: settings.lease)
            current = batch.job
            afterBatch(batch)
            progress(current)
        }
        if current.state == .done {
            logger.info("re-push job done", ["job.id": job.id, "total": "\(current.total)", "done": "\(current.done)"])
        }
        return current
    }
}

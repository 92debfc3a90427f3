import APNs
import Foundation
import Logging
import Storage
import Synchronization

/// Delivers the push outbox: claims due rows, sends them concurrently, and applies the APNs reply
/// table (`PushPolicy`) to each answer.
///
/// Threading: one dedicated thread owns the loop and every (blocking) store call. Sends run in one
/// owned task that starts a child task per row and hands each outcome back to the loop thread;
/// that task and its children prefer `SendingExecutor`'s own thread, so a busy cooperative pool
/// never delays deliveries, and nothing blocking runs on it. At-least-once: a row leaves the outbox only in
/// the transaction that records APNs's answer; rows of a process that dies stay claimed until their
/// lease expires and are then sent again.
final class PushDispatcher: Sendable {
    struct Settings: Sendable {
        var batchSize = 500
        var maxInFlight = 1_000
        /// How long a claimed row is ours; longer than any send can take.
        var lease: Duration = .seconds(90)
        /// How often the outbox is polled for rows other processes enqueued.
        var pollInterval: TimeInterval = 1
        /// After a configuration or credential error, how long to pause before trying one row again.
        var haltPause: TimeInterval = 300
        var drainTimeout: TimeInterval = 10
        /// While pushes are pending, how long APNs may stay unreachable before `/readyz` says so.
        var unreachableGrace: TimeInterval = 60
    }

    /// Totals since start, for metrics and tests.
    struct Statistics: Sendable, Equatable {
        var delivered = 0
        /// Only logged (`APNS_MODE=log`), never sent.
        var logged = 0
        /// Pushes whose answer pruned their token's registrations.
        var pruned = 0
        var retried = 0
        var halted = 0
        /// Registrations deleted after those answers, by APNs's reason (`APNSReason.metricLabel`).
        var registrationsPruned: [String: Int] = [:]
        /// Rows given up on, by `PushPolicy.Failure.metricLabel`.
        var failedByReason: [String: Int] = [:]
        /// Sends APNs never answered (connection or TLS failure, connection lost, timeout).
        var transportFailures = 0

        var failed: Int { failedByReason.values.reduce(0, +) }

        mutating func add(_ other: Statistics) {
            delivered += other.delivered
            logged += other.logged
            pruned += other.pruned
            retried += other.retried
            halted += other.halted
            registrationsPruned.merge(other.registrationsPruned, uniquingKeysWith: +)
            failedByReason.merge(other.failedByReason, uniquingKeysWith: +)
            transportFailures += other.transportFailures
        }
    }

    struct Completion: Sendable {
        var row: OutboxRow
        var delivery: PushDelivery
        var latency: Duration
    }

    struct State: Sendable {
        var signalled = false
        var stopping = false
        var inFlight = 0
        var completed: [Completion] = []
        var haltedUntil: Date?
        var reachability = APNSReachability()
        var statistics = Statistics()
        /// The database outage in progress, if any (touched by the loop thread only).
        var outage = DatabaseOutage()
        /// While the database is unavailable: when the loop tries it again.
        var databaseRetryAt: Date?
    }

    let store: any Store
    let sender: any PushSender
    let policy: PushPolicy
    let readiness: Readiness
    let logger: Logger
    let settings: Settings
    let now: @Sendable () -> Date
    let state = Mutex(State())
    let condition = SendableCondition()
    let rows: AsyncStream<OutboxRow>
    let rowsContinuation: AsyncStream<OutboxRow>.Continuation
    let senderTask = Mutex<Task<Void, Never>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    let started = Atomic<Bool>(false)
    let executor = SendingExecutor(name: "push-sender")
    let senderFinished = DispatchSemaphore(value: 0)

    init(store: any Store, sender: any PushSender, policy: PushPolicy, readiness: Readiness, logger: Logger,
         settings: Settings = Settings(), now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.sender = sender
        self.policy = policy
        self.readiness = readiness
        self.logger = logger
        self.settings = settings
        self.now = now
        (rows, rowsContinuation) = AsyncStream.makeStream(of: OutboxRow.self)
    }

    var statistics: Statistics { state.withLock { $0.statistics } }

    /// Whether sending is paused after APNs refused our credentials or topic (probing included).
    var isHalted: Bool { state.withLock { $0.haltedUntil != nil } }

    /// The `/readyz` finding while APNs has been unreachable for longer than the grace and pushes
    /// are pending (the outbox is only asked once the outage is long enough; if the database
    /// cannot answer, `/readyz` reports that instead).
    func unreachableFinding() -> Readiness.Finding? {
        let reachability = state.withLock { $0.reachability }
        let time = now()
        guard reachability.exceeds(grace: settings.unreachableGrace, now: time), let since = reachability.unreachableSince,
              (try? store.withSession(.read, { try $0.hasPendingPushes() })) == true
        else { return nil }
        return Readiness.Finding(
            severity: .problem, component: "apns",
            message: "unreachable for \(Int(time.timeIntervalSince(since))) s (connect or TLS failures) while pushes are pending"
                + "; APNS_UNREACHABLE_GRACE is \(Int(settings.unreachableGrace)) s"
        )
    }

    /// Starts the loop thread and the sending task.
    func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let rows = self.rows
        senderTask.withLock { task in
            task = Task.detached(executorPreference: executor) { [self] in
                defer { senderFinished.signal() }
                // Discarding: a long-running plain task group keeps every finished child until
                // it is awaited, which this loop never does.
                await withDiscardingTaskGroup { group in
                    for await row in rows {
                        group.addTask { await self.send(row) }
                    }
                }
            }
        }
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "push-dispatcher"
        thread.start()
    }

    /// Asks the loop to look at the outbox now (after this process enqueued something).
    func wake() {
        condition.lock()
        state.withLock { state in
            state.signalled = true
            // Whatever enqueued just committed: the database answers, so try it now.
            state.databaseRetryAt = nil
        }
        condition.signal()
        condition.unlock()
    }

    /// Stops claiming, waits for in-flight pushes (bounded by the drain timeout) and records them.
    func shutdown() {
        guard started.load(ordering: .relaxed) else { return }
        condition.lock()
        let already = state.withLock { state in
            defer { state.stopping = true; state.signalled = true }
            return state.stopping
        }
        condition.signal()
        condition.unlock()
        guard !already else { return }
        finished.wait()
        rowsContinuation.finish()
        sender.shutdown()
        senderTask.withLock { $0?.cancel() }
        // The sends have all been answered or failed by now; let the task group wind down.
        _ = senderFinished.wait(timeout: .now() + .seconds(5))
        executor.stop()
    }

    // MARK: Sending (cooperative pool: no blocking here)

    /// Hands a claimed row to the sending task.
    func enqueueForSending(_ row: OutboxRow) {
        rowsContinuation.yield(row)
    }

    func send(_ row: OutboxRow) async {
        let start = ContinuousClock.now
        let delivery = await sender.deliver(APNSRequest(pushToken: row.pushToken, topic: row.passTypeIdentifier))
        let completion = Completion(row: row, delivery: delivery, latency: ContinuousClock.now - start)
        condition.lock()
        state.withLock { state in
            state.completed.append(completion)
            state.signalled = true
        }
        condition.signal()
        condition.unlock()
    }
}

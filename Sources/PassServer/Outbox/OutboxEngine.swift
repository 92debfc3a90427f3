import Foundation
import Logging
import Synchronization
import SystemSupport

/// How an outbox engine claims and sends.
struct OutboxSettings: Sendable {
    var batchSize = 500
    /// Rows sent and not yet answered, at most.
    var maxInFlight = 1_000
    /// How long a claimed row is ours; longer than any send can take.
    var lease: Duration = .seconds(90)
    /// How often the outbox is polled for rows other processes enqueued.
    var pollInterval: TimeInterval = 1
    /// After a halting answer (our credentials or configuration refused), how long to pause
    /// before trying one row again.
    var haltPause: TimeInterval = 300
    /// On shutdown, how long answers still owed may take.
    var drainTimeout: TimeInterval = 10
    /// While messages wait, how long the far end may stay unreachable before `/readyz` says so
    /// (used by the channel).
    var unreachableGrace: TimeInterval = 60
    /// How long an answer may wait for more to be recorded in the same transaction, while more
    /// are owed and fewer than `batchSize` wait (0: each wake records what has arrived). A fast
    /// far end answers one by one; a few milliseconds make its answers one transaction per batch
    /// rather than one per handful.
    var recordWindow: TimeInterval = 0
}

/// One outbox engine for any `OutboxChannel`: claims due rows under a lease, hands them to the
/// channel's sender, and records the answers in bulk with the channel's reply policy (retry with
/// backoff and jitter, fail for good, halt everything on a refusal of our own credentials).
///
/// Threading: one `Worker` thread runs `Loop` and makes every (blocking) store call. The sender
/// calls back from its own thread (the APNs client's I/O thread) with each answer; the callback
/// appends it to `inbox` and wakes the worker when the inbox was empty, so answers reach the loop
/// in batches with one lock per answer and no async bridge. At-least-once: a row leaves the outbox
/// only in the transaction that records its answer; rows of a process that dies stay claimed
/// until their lease expires and are then sent again.
final class OutboxEngine<Channel: OutboxChannel>: Sendable {
    typealias Answer = OutboxAnswer<Channel.Row, Channel.Policy.Answer>

    typealias Settings = OutboxSettings

    let channel: Channel
    let settings: Settings
    let logger: Logger
    let now: @Sendable () -> Date
    let worker: Worker
    /// What the engine does, for log lines (`push dispatch`).
    let activity: String
    /// Answers from the sender's thread, taken by the loop.
    let inbox = Mutex<[Answer]>([])
    /// Set by `wake()`: the database answered someone in this process, so try it now.
    let retryDatabaseNow = Atomic<Bool>(false)
    /// While sending is paused after a halting answer: until when (probing included). Read by metrics.
    let haltedUntil = Mutex<Date?>(nil)
    private let pacing: Mutex<(any OutboxPacing)?>

    init(
        channel: Channel, settings: Settings, pacing: any OutboxPacing = Unpaced(), logger: Logger, name: String,
        activity: String, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.channel = channel
        self.settings = settings
        self.logger = logger
        self.now = now
        self.worker = Worker(name: name)
        self.activity = activity
        self.pacing = Mutex(pacing)
    }

    /// Whether sending is paused after a halting answer (probing included).
    var isHalted: Bool { haltedUntil.withLock { $0 != nil } }

    /// Starts the loop thread.
    func start() {
        guard let pacing = pacing.withLock({ value in defer { value = nil }; return value }) else { return }
        worker.start(Loop(engine: self, pacing: pacing))
    }

    /// Asks the loop to look at the outbox now (after this process enqueued something).
    func wake() {
        retryDatabaseNow.store(true, ordering: .relaxed)
        worker.wake()
    }

    /// Stops claiming, waits for answers still owed (bounded by the drain timeout) and records
    /// them, then stops the sender.
    func shutdown() {
        worker.shutdown()
        channel.outboxSender.shutdown()
    }

    /// Hands claimed rows to the sender; each answer comes back through `inbox`.
    func send(_ rows: [Channel.Row]) {
        let start = ContinuousClock.now
        let messages = rows.map(channel.message(for:))
        channel.outboxSender.send(messages) { [self] index, answer in
            let item = Answer(row: rows[index], answer: answer, latency: ContinuousClock.now - start)
            let wasEmpty = inbox.withLock { answers in
                defer { answers.append(item) }
                return answers.isEmpty
            }
            if wasEmpty { worker.wake() }
        }
    }
}

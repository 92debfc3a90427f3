import Foundation
import Logging
import PassIdentifiers
import Storage
import Synchronization
import SystemSupport

/// Reach marks from the phones' requests (a device was told a tag, a pass's revision was served),
/// written in batches by a thread of their own instead of one transaction per request.
///
/// After an event edit every phone lists and fetches once: writing each mark in its own
/// transaction made the bookkeeping cost PostgreSQL more than answering the phones did. Here a
/// mark waits at most `delay` (or until `batchSize` are waiting) and is written with the others
/// in one transaction (`StoreSession.reach.recordReach`). Reach is bookkeeping, never part of a phone's
/// answer, so:
/// - what readers of reach see in this process is current: the admin API and the dashboard call
///   `settle()` before they read, which writes what is waiting. Another instance's marks show
///   after its `delay`.
/// - a mark the database does not take (an outage, SQLite's writer busy beyond its timeout) is
///   logged and dropped, as a per-request write was; the device counts again after the pass's
///   next change. While the database falls behind, at most `capacity` marks wait; more are dropped
///   and counted in the log.
/// - a mark saying what a waiting one says (a phone fetching its pass again and again) is not
///   kept twice, so one attendee's requests take one place in the ledger.
/// - on shutdown everything waiting is written after the last request was answered; a process
///   killed outright loses at most `delay` of marks.
///
/// Threading: `told`, `served` and `settle` may be called from any thread; batches are written by
/// the ledger's worker thread or by a thread in `settle`, one at a time.
final class ReachLedger: Sendable {
    struct Settings: Sendable {
        /// How long a mark may wait for others before it is written.
        var delay: TimeInterval = 0.2
        /// The most marks in one transaction; this many waiting are written at once.
        var batchSize = 2_000
        /// The most marks waiting; more are dropped (and counted in the log).
        var capacity = 100_000
    }

    private struct Waiting: Sendable {
        var marks = ReachMarks()
        /// What the waiting marks say, without their times: a mark saying the same again (a phone
        /// fetching its pass twice before the batch is written) is not kept twice.
        var told: Set<ToldKey> = []
        var served: Set<ServedKey> = []
        var since: Date?
        var dropped = 0
    }

    private struct ToldKey: Hashable, Sendable {
        var device: DeviceLibraryIdentifier
        var passType: PassTypeIdentifier
        var listedAfter: Int64?
        var tag: Int64

        init(_ mark: ReachMarks.Told) {
            (device, passType, listedAfter, tag) = (mark.deviceLibraryIdentifier, mark.passTypeIdentifier, mark.listedAfter, mark.tag)
        }
    }

    private struct ServedKey: Hashable, Sendable {
        var passType: PassTypeIdentifier
        var serial: SerialNumber
        var revision: Int64

        init(_ mark: ReachMarks.Served) {
            (passType, serial, revision) = (mark.passTypeIdentifier, mark.serialNumber, mark.revision)
        }
    }

    let settings: Settings
    private let store: any Store
    private let logger: Logger
    private let waiting = Mutex<Waiting>(Waiting())
    /// Held while a batch is written, so `settle` also waits for the batch the worker holds.
    private let writing = Mutex<Void>(())
    private let worker = Worker(name: "reach")

    init(store: any Store, logger: Logger, settings: Settings = Settings()) {
        self.store = store
        self.logger = logger
        self.settings = settings
    }

    func start() {
        worker.start(Loop(ledger: self))
    }

    /// Writes what is waiting and stops the thread. Call after the last request was answered.
    func shutdown() {
        worker.shutdown()
    }

    func told(_ mark: ReachMarks.Told) {
        add { state in
            if state.told.insert(ToldKey(mark)).inserted { state.marks.told.append(mark) }
        }
    }

    func served(_ mark: ReachMarks.Served) {
        add { state in
            if state.served.insert(ServedKey(mark)).inserted { state.marks.served.append(mark) }
        }
    }

    /// Marks waiting to be written.
    var waitingCount: Int { waiting.withLock { $0.marks.count } }

    /// Writes every mark waiting now (and waits for a batch being written): what a reader of
    /// reach calls first, so it sees what this process's phones did.
    func settle() {
        writing.withLock { _ in
            // What waits now, in batches; marks arriving meanwhile are the thread's.
            var left = waitingCount
            while left > 0 {
                let batch = take(limit: min(settings.batchSize, left))
                guard !batch.isEmpty else { return }
                left -= batch.count
                write(batch)
            }
        }
    }

    private func add(_ append: (inout Waiting) -> Void) {
        let wake = waiting.withLock { state -> Bool in
            guard state.marks.count < settings.capacity else {
                state.dropped += 1
                return false
            }
            let before = state.marks.count
            append(&state)
            guard state.marks.count > before else { return false }
            if state.since == nil {
                state.since = Date()
                return true
            }
            return state.marks.count == settings.batchSize
        }
        if wake { worker.wake() }
    }

    /// When the waiting marks are due: now with a full batch, `delay` after the oldest otherwise,
    /// nil with none.
    fileprivate func due() -> Date? {
        waiting.withLock { state in
            guard let since = state.since else { return nil }
            return state.marks.count >= settings.batchSize ? .distantPast : since.addingTimeInterval(settings.delay)
        }
    }

    /// Writes one batch of what is waiting.
    fileprivate func writeBatch() {
        writing.withLock { _ in write(take(limit: settings.batchSize)) }
    }

    /// Takes up to `limit` waiting marks (told first, in arrival order), logging those dropped.
    private func take(limit: Int) -> ReachMarks {
        let (marks, dropped) = waiting.withLock { state -> (ReachMarks, Int) in
            let told = min(limit, state.marks.told.count)
            let served = min(limit - told, state.marks.served.count)
            let taken = ReachMarks(told: Array(state.marks.told.prefix(told)), served: Array(state.marks.served.prefix(served)))
            state.marks.told.removeFirst(told)
            state.marks.served.removeFirst(served)
            for mark in taken.told { state.told.remove(ToldKey(mark)) }
            for mark in taken.served { state.served.remove(ServedKey(mark)) }
            state.since = state.marks.isEmpty ? nil : state.since
            defer { state.dropped = 0 }
            return (taken, state.dropped)
        }
        if dropped > 0 {
            logger.warning("reach marks dropped: more were waiting than the ledger keeps", ["dropped": "\(dropped)", "capacity": "\(settings.capacity)"])
        }
        return marks
    }

    private func write(_ marks: ReachMarks) {
        guard !marks.isEmpty else { return }
        do {
            try store.withSession(.write) { try $0.reach.recordReach(marks) }
        } catch {
            let level: LogLevel = DatabaseOutage.isOutage(error) ? .warning : .error
            logger.log(level, "reach not recorded; the phones had their answers", ["marks": "\(marks.count)", "error": "\(error)"])
        }
    }

    /// The worker's rounds: a batch when one is due, else sleep until the next is.
    private final class Loop: WorkerLoop {
        let ledger: ReachLedger

        init(ledger: ReachLedger) {
            self.ledger = ledger
        }

        func step(stopping: Bool) -> Worker.Next {
            if stopping {
                ledger.settle()
                return .done
            }
            guard let due = ledger.due() else { return .sleep(until: nil) }
            guard due <= Date() else { return .sleep(until: due) }
            ledger.writeBatch()
            return .again
        }
    }
}

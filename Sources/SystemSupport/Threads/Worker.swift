package import Foundation
import Synchronization

/// What a worker's thread runs: one round at a time, on that thread only.
///
/// The push dispatcher, the job runner, the retention sweep and the certificate check are each one
/// such loop: plain single-threaded code that may block (database calls, signing) because it never
/// runs on Swift's cooperative pool.
package protocol WorkerLoop: AnyObject {
    /// One round of work. `stopping` turns true once `Worker.shutdown()` was called; the loop then
    /// drains what it must (answers in flight) and returns `.done`.
    func step(stopping: Bool) -> Worker.Next
}

/// A dedicated, named thread running a `WorkerLoop`: it runs rounds back to back while there is
/// work, sleeps until the time the loop asks for or until `wake()`, and on `shutdown()` lets the
/// loop drain and waits for the thread to end.
///
/// Threading: `wake` and `shutdown` may be called from any thread; the loop object is handed to
/// the thread at `start` and used by it alone. Waking is one flag and one semaphore: a wake that
/// arrives while the loop is busy is remembered, so the next sleep returns at once.
package final class Worker: Sendable {
    /// What the loop wants after a round.
    package enum Next: Sendable, Equatable {
        /// Run another round at once.
        case again
        /// Sleep until this time, or until woken (nil: until woken).
        case sleep(until: Date?)
        /// The loop is finished (after `stopping`); the thread ends.
        case done
    }

    package let name: String
    private let signalled = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    package init(name: String) {
        self.name = name
    }

    /// Starts the thread running `loop`; the loop belongs to that thread from now on. Only the first call starts anything.
    package func start(_ loop: any WorkerLoop) {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let owned = Owned(loop)
        let thread = Thread { [self] in
            nameCurrentThread(name)
            run(owned.loop)
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Ends the sleep in progress (or the next one): something arrived for the loop.
    package func wake() {
        if !signalled.exchange(true, ordering: .sequentiallyConsistent) { wakeUp.signal() }
    }

    /// Whether `shutdown()` was called.
    package var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Asks the loop to drain and finish, and waits for its thread to end. Idempotent.
    package func shutdown() {
        guard started.load(ordering: .sequentiallyConsistent) else { return }
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake()
        finished.wait()
        // Passed on, so a second shutdown returns too.
        finished.signal()
    }

    private func run(_ loop: any WorkerLoop) {
        while true {
            switch loop.step(stopping: isStopping) {
            case .again:
                continue
            case .done:
                return
            case .sleep(let until):
                sleep(until: until)
            }
        }
    }

    private func sleep(until date: Date?) {
        if signalled.exchange(false, ordering: .sequentiallyConsistent) { return }
        if let date {
            let seconds = date.timeIntervalSinceNow
            guard seconds > 0 else { return }
            _ = wakeUp.wait(timeout: .now() + .nanoseconds(Int(min(seconds, 86_400) * 1e9)))
        } else {
            wakeUp.wait()
        }
        signalled.store(false, ordering: .sequentiallyConsistent)
    }

    /// Carries the loop to its thread.
    // Safe because the loop is created by the caller of `start`, handed over here, and from then
    // on touched only by the worker's thread.
    private final class Owned: @unchecked Sendable {
        let loop: any WorkerLoop
        init(_ loop: any WorkerLoop) { self.loop = loop }
    }
}

extension Worker {
    /// A worker that runs `work` every `interval` (the first time at start, unless `runAtStart` is
    /// false) until shut down. `work` receives a check that turns true on shutdown, so a long run
    /// can end early between steps; `shutdown()` waits for the run in progress.
    package static func periodic(
        name: String, interval: TimeInterval, runAtStart: Bool = true, work: @escaping @Sendable (_ shouldStop: () -> Bool) -> Void
    ) -> Periodic {
        Periodic(worker: Worker(name: name), interval: interval, runAtStart: runAtStart, work: work)
    }

    /// A started-on-demand periodic worker (`Worker.periodic`).
    package struct Periodic: Sendable {
        package let worker: Worker
        package let interval: TimeInterval
        package let runAtStart: Bool
        package let work: @Sendable (_ shouldStop: () -> Bool) -> Void

        package func start() {
            worker.start(PeriodicLoop(worker: worker, interval: interval, runAtStart: runAtStart, work: work))
        }

        package func shutdown() { worker.shutdown() }
    }

    private final class PeriodicLoop: WorkerLoop {
        let worker: Worker
        let interval: TimeInterval
        /// When `work` runs next; a wake before then only sleeps again.
        var nextRun: Date
        let work: @Sendable (_ shouldStop: () -> Bool) -> Void

        init(worker: Worker, interval: TimeInterval, runAtStart: Bool, work: @escaping @Sendable (_ shouldStop: () -> Bool) -> Void) {
            self.worker = worker
            self.interval = interval
            self.nextRun = runAtStart ? Date() : Date().addingTimeInterval(interval)
            self.work = work
        }

        func step(stopping: Bool) -> Worker.Next {
            if stopping { return .done }
            if Date() >= nextRun {
                work { [worker] in worker.isStopping }
                nextRun = Date().addingTimeInterval(interval)
            }
            return .sleep(until: nextRun)
        }
    }
}

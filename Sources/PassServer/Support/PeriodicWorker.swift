import Foundation
import Synchronization

/// A dedicated thread that runs `work` every `interval` (the first time at start, unless
/// `runAtStart` is false) until shut down.
///
/// `work` blocks (database calls) on this thread, never on Swift's cooperative pool. It receives a
/// `shouldStop` check so a long run can end early between steps; `shutdown()` waits for the run in
/// progress to return.
final class PeriodicWorker: Sendable {
    private let name: String
    private let interval: TimeInterval
    private let runAtStart: Bool
    private let work: @Sendable (_ shouldStop: () -> Bool) -> Void
    private let condition = SendableCondition()
    private let stopping = Mutex(false)
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(name: String, interval: TimeInterval, runAtStart: Bool = true, work: @escaping @Sendable (_ shouldStop: () -> Bool) -> Void) {
        self.name = name
        self.interval = interval
        self.runAtStart = runAtStart
        self.work = work
    }

    func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Stops after the run in progress; idempotent.
    func shutdown() {
        guard started.load(ordering: .relaxed) else { return }
        condition.lock()
        stopping.withLock { $0 = true }
        condition.signal()
        condition.unlock()
        finished.wait()
        // Passed on, so a second shutdown returns too.
        finished.signal()
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    private func loop() {
        var first = true
        while !isStopping {
            if runAtStart || !first { work { self.isStopping } }
            first = false
            let deadline = Date().addingTimeInterval(interval)
            condition.lock()
            while !isStopping, condition.wait(until: deadline) {}
            condition.unlock()
        }
    }
}

import Foundation
import Synchronization

/// A task executor with one dedicated thread: the push dispatcher's sends (and the resumption of
/// each one when APNs answers) run here, so deliveries never wait for the cooperative pool, which
/// the rest of the process (or a test runner) may keep busy.
///
/// Threading: `enqueue` may be called from any thread; jobs run one after the other on the
/// executor's thread, which ends after `stop()` once the queue is empty.
final class SendingExecutor: TaskExecutor, Sendable {
    private let jobs = Mutex<[UnownedJob]>([])
    private let stopped = Atomic<Bool>(false)
    private let available = DispatchSemaphore(value: 0)
    private let threadStarted = Atomic<Bool>(false)
    private let name: String

    /// The thread starts with the first job, so an executor that is never used costs nothing.
    init(name: String) {
        self.name = name
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        if !threadStarted.exchange(true, ordering: .sequentiallyConsistent) {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }
        available.signal()
    }

    /// Ends the thread once every job enqueued so far has run.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        available.signal()
    }

    private func run() {
        while true {
            available.wait()
            let next = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let next {
                next.runSynchronously(on: asUnownedTaskExecutor())
            } else if stopped.load(ordering: .sequentiallyConsistent) {
                return
            }
        }
    }
}

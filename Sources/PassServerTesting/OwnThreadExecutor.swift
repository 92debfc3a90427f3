import Foundation
import Glibc

/// A task executor that never makes a job wait for a thread: each job runs on an idle thread of its
/// own pool, or on a new thread when none is idle. Threads idle for a few seconds end.
///
/// Swift's cooperative pool has one thread per core (two on a small CI machine), and a test that
/// blocks one of them (a blocking HTTP client, a child process, a database wait, a sleep) stalls
/// every task in the process. Work that prefers this executor may block as long as it likes; see
/// the `offCooperativePool` trait.
///
/// Threading model: `enqueue` appends the job to a queue under `condition` and wakes an idle
/// thread, or starts one when there are more queued jobs than idle threads. Each thread takes jobs
/// off the queue and runs them until it has waited `idleLifetime` seconds for one.
public final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Safe because `jobs` and `idle` are read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var idle = 0
    private let idleLifetime: Double

    /// Marks the pool's threads (any non-nil value), for `isCurrentThreadOwn`.
    private static let ownThreadKey: pthread_key_t = {
        var key = pthread_key_t()
        _ = pthread_key_create(&key, nil)
        return key
    }()

    /// Whether the calling thread is one of the pool's (of any `OwnThreadExecutor`).
    public static var isCurrentThreadOwn: Bool { pthread_getspecific(ownThreadKey) != nil }

    /// The executor the `offCooperativePool` trait runs tests on.
    public static let shared = OwnThreadExecutor()

    /// `idleLifetime`: seconds a thread waits for a job before it ends.
    public init(idleLifetime: Double = 5) {
        self.idleLifetime = idleLifetime
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let startThread = jobs.count > idle
        if !startThread { condition.signal() }
        condition.unlock()
        if startThread {
            Thread { [self] in work() }.start()
        }
    }

    /// Runs jobs until none has come for `idleLifetime` seconds.
    private func work() {
        _ = pthread_setspecific(Self.ownThreadKey, UnsafeRawPointer(bitPattern: 1))
        while let job = next() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The next job, or nil once the thread has been idle for `idleLifetime` seconds.
    private func next() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        idle += 1
        defer { idle -= 1 }
        let deadline = Date().addingTimeInterval(idleLifetime)
        while jobs.isEmpty {
            if !condition.wait(until: deadline), jobs.isEmpty { return nil }
        }
        return jobs.removeFirst()
    }
}

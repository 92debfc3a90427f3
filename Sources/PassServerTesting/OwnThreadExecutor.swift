import Foundation
import Glibc

/// A task executor that does not make a job wait for a thread: each job runs on an idle thread of
/// its own pool, or on a new thread when none is idle, up to `maximumThreads` (a bound for tests
/// that start thousands of child tasks at once). Threads idle for a few seconds end.
///
/// Swift's cooperative pool has one thread per core (two on a small CI machine), and a test that
/// blocks one of them (a blocking HTTP client, a child process, a database wait, a sleep) stalls
/// every task in the process. Work that prefers this executor may block as long as it likes; see
/// the `offCooperativePool` trait.
///
/// Threading model: `enqueue` appends the job to a queue under `condition` and wakes an idle
/// thread, or starts one when there are more queued jobs than idle threads and fewer threads than
/// `maximumThreads`. Each thread takes jobs off the queue, oldest first, and runs them until it has
/// waited `idleLifetime` seconds for one.
public final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Safe because `jobs`, `head`, `threads` and `idle` are read and written only while
    // `condition` is locked.
    private let condition = NSCondition()
    /// Queued jobs are `jobs[head...]`.
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var threads = 0
    private var idle = 0
    private let idleLifetime: Double
    private let maximumThreads: Int

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
    public init(maximumThreads: Int = 64, idleLifetime: Double = 5) {
        self.maximumThreads = max(1, maximumThreads)
        self.idleLifetime = idleLifetime
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let startThread = jobs.count - head > idle && threads < maximumThreads
        if startThread { threads += 1 } else { condition.signal() }
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

    /// The next job, or nil (and the thread no longer counted) once the thread has been idle for
    /// `idleLifetime` seconds.
    private func next() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        idle += 1
        defer { idle -= 1 }
        let deadline = Date().addingTimeInterval(idleLifetime)
        while head == jobs.count {
            if !condition.wait(until: deadline), head == jobs.count {
                threads -= 1
                return nil
            }
        }
        let job = jobs[head]
        head += 1
        // Drop the taken jobs once they are most of the array (amortised constant time).
        if head == jobs.count || head >= 1_024 && head * 2 >= jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }
}

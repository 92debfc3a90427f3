import Glibc
import PassServerTesting
import Synchronization
import Testing

/// `OwnThreadExecutor`: jobs run on its own threads, never more of them than its bound.
@Suite("Own-thread executor", .offCooperativePool, .timeLimit(.minutes(1)))
struct OwnThreadExecutorTests {
    @Test("a thousand child tasks at once run on at most `maximumThreads` threads of the pool, and all finish")
    func threadsAreBounded() async {
        let executor = OwnThreadExecutor(maximumThreads: 3)
        let seen = Seen()
        let finished = await withTaskExecutorPreference(executor) {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<1_000 {
                    group.addTask {
                        seen.threads.withLock { _ = $0.insert(UInt(pthread_self())) }
                        return OwnThreadExecutor.isCurrentThreadOwn
                    }
                }
                return await group.reduce(into: 0) { count, own in count += own ? 1 : 0 }
            }
        }
        #expect(finished == 1_000, "child tasks that ran on the pool's threads")
        let threads = seen.threads.withLock { $0.count }
        #expect(threads >= 1 && threads <= 3)
    }

    /// The threads that ran a job.
    final class Seen: Sendable {
        let threads = Mutex(Set<UInt>())
    }
}

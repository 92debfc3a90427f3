import Dispatch
import Foundation
import PassServerTesting
import Synchronization
import Testing

/// The `offCooperativePool` trait: tests that block their threads, more of them than the
/// cooperative pool has threads, while a task on that pool still makes progress.
@Suite("Tests off the cooperative pool", .offCooperativePool, .timeLimit(.minutes(3)))
struct OffCooperativePoolTests {
    /// More blocked threads than the cooperative pool ever has: one per core, and on Linux
    /// libdispatch adds threads to a blocked pool only up to twice the core count.
    static let blockers = 4 * ProcessInfo.processInfo.activeProcessorCount

    @Test("child tasks of a test block while a task on the cooperative pool makes progress")
    func blockingChildTasks() async {
        let progress = Progress()
        let seen = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<Self.blockers {
                group.addTask { progress.waitBlocking() && OwnThreadExecutor.isCurrentThreadOwn }
            }
            progress.start()
            return await group.reduce(into: 0) { count, saw in count += saw ? 1 : 0 }
        }
        #expect(seen == Self.blockers, "blocked threads that saw the cooperative pool's task finish")
    }

    static let synchronousProgress = Progress()

    @Test("synchronous test bodies block while a task on the cooperative pool makes progress", arguments: 0..<blockers)
    func blockingSynchronousBodies(_ index: Int) {
        Self.synchronousProgress.start()
        #expect(Self.synchronousProgress.waitBlocking(), "body \(index) saw the cooperative pool's task finish")
        #expect(OwnThreadExecutor.isCurrentThreadOwn)
    }

    /// A task on the cooperative pool that sleeps a few times and then lets blocked threads go on.
    final class Progress: Sendable {
        private let started = Mutex(false)
        private let finished = DispatchSemaphore(value: 0)

        /// Starts the task (once; later calls do nothing).
        func start() {
            guard started.withLock({ wasStarted in defer { wasStarted = true }; return !wasStarted }) else { return }
            Task.detached { [finished] in
                for _ in 0..<5 { try? await Task.sleep(for: .milliseconds(20)) }
                // Enough for every waiter: each takes one and gives it back.
                finished.signal()
            }
        }

        /// Blocks the calling thread until the task has finished; false after a minute without it.
        func waitBlocking() -> Bool {
            guard finished.wait(timeout: .now() + 60) == .success else { return false }
            finished.signal()
            return true
        }
    }
}

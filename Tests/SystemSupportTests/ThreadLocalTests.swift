import Foundation
import PassServerTesting
import SystemSupport
import Synchronization
import Testing

/// `ThreadLocal`: one value per thread, the same one on every use, released when the thread ends.
@Suite("Thread-local values", .offCooperativePool, .timeLimit(.minutes(1)))
struct ThreadLocalTests {
    final class Value: Sendable {}

    /// Weak references to values, to see whether anything still holds them.
    final class Watched: @unchecked Sendable {
        private let lock = NSLock()
        private var references: [() -> AnyObject?] = []
        func watch(_ value: AnyObject) { lock.withLock { references.append { [weak value] in value } } }
        var alive: Int { lock.withLock { references.filter { $0() != nil }.count } }
        var count: Int { lock.withLock { references.count } }
        var distinctAlive: Int { lock.withLock { Set(references.compactMap { $0().map(ObjectIdentifier.init) }).count } }
    }

    @Test("each thread gets its own value, the same on every use, released when the thread ends")
    func perThreadAndReleased() throws {
        let local = ThreadLocal { Value() }
        let watched = Watched()
        let sameOnEveryUse = Atomic<Int>(0)
        let group = DispatchGroup()
        let running = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        for _ in 0..<4 {
            group.enter()
            Thread {
                let value = local.current
                if local.current === value { sameOnEveryUse.add(1, ordering: .relaxed) }
                watched.watch(value)
                running.signal()
                finish.wait()
                group.leave()
            }.start()
        }
        for _ in 0..<4 { running.wait() }
        // All four threads are alive and hold their values: four distinct values, none released.
        #expect(watched.count == 4)
        #expect(watched.alive == 4)
        #expect(watched.distinctAlive == 4)
        #expect(sameOnEveryUse.load(ordering: .relaxed) == 4)
        for _ in 0..<4 { finish.signal() }
        group.wait()
        // The threads end just after leaving the group: their values go with them.
        let deadline = Date().addingTimeInterval(10)
        while watched.alive > 0, Date() < deadline { usleep(10_000) }
        #expect(watched.alive == 0, "values outlived their threads")
    }
}

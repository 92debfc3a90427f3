import Foundation
import PassServerTesting
import SystemSupport
import Testing

/// `ThreadShards`: every thread's updates are kept, each thread keeps to one copy, and a reader
/// sees them all.
@Suite("Thread shards", .offCooperativePool, .timeLimit(.minutes(1)))
struct ThreadShardsTests {
    /// Runs `body` on `count` threads at once and waits for all of them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        group.wait()
    }

    @Test("no update is lost when more threads than copies update at once")
    func nothingLost() {
        let shards = ThreadShards(count: 3) { 0 }
        Self.onThreads(8) { _ in
            for _ in 0..<20_000 { shards.withLock { $0 += 1 } }
        }
        #expect(shards.map { $0 }.reduce(0, +) == 160_000)
    }

    @Test("each thread updates one copy throughout")
    func oneCopyPerThread() {
        // More copies than threads: a thread that moved between copies would leave a count that
        // is not a whole multiple of its updates.
        let shards = ThreadShards(count: 4_096) { 0 }
        Self.onThreads(6) { _ in
            for _ in 0..<1_000 { shards.withLock { $0 += 1 } }
        }
        let counts = shards.map { $0 }.filter { $0 > 0 }
        #expect(counts.reduce(0, +) == 6_000)
        #expect(counts.allSatisfy { $0 % 1_000 == 0 }, "\(counts)")
    }
}

import PassServerTesting
import Synchronization
import Testing

/// `TestSlots`: no more holders at once than slots, and every waiter gets its turn.
@Suite("Test slots", .offCooperativePool, .timeLimit(.minutes(1)))
struct TestSlotsTests {
    @Test("at most `count` bodies run at once, and all of them run")
    func holdersAreBounded() async {
        let slots = TestSlots(count: 2)
        let running = Running()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await slots.withSlot {
                        running.state.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        try? await Task.sleep(for: .milliseconds(30))
                        running.state.withLock { $0.now -= 1; $0.finished += 1 }
                    }
                }
            }
        }
        let counts = running.state.withLock { $0 }
        #expect(counts.finished == 8)
        // Eight bodies sleeping at once could all overlap: the bound is what kept them to two.
        #expect(counts.most == 2)
    }

    @Test("waiters get the slot highest priority first, in the order they asked among equals")
    func priorities() async throws {
        let slots = TestSlots(count: 1)
        let order = Order()
        let release = AsyncStream<Void>.makeStream()
        let holder = Task {
            await slots.withSlot {
                order.append("holder")
                for await _ in release.stream { break }
            }
        }
        try await eventually("the holder has the slot") { order.names == ["holder"] }
        var waiters: [Task<Void, Never>] = []
        for (name, priority) in [("a", 1.0), ("b", 5), ("c", 3), ("d", 5)] {
            waiters.append(Task { await slots.withSlot(priority: priority) { order.append(name) } })
            // Queued before the next one asks.
            try await eventually("\(name) waiting") { slots.waiting == waiters.count }
        }
        release.continuation.yield()
        await holder.value
        for waiter in waiters { await waiter.value }
        #expect(order.names == ["holder", "b", "d", "c", "a"])
    }

    /// Names in the order they were appended.
    final class Order: Sendable {
        private let list = Mutex<[String]>([])
        func append(_ name: String) { list.withLock { $0.append(name) } }
        var names: [String] { list.withLock { $0 } }
    }

    /// How many bodies run now, the most that ran at once, and how many finished.
    final class Running: Sendable {
        let state = Mutex((now: 0, most: 0, finished: 0))
    }
}

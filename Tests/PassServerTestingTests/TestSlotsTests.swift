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

    /// How many bodies run now, the most that ran at once, and how many finished.
    final class Running: Sendable {
        let state = Mutex((now: 0, most: 0, finished: 0))
    }
}

import Foundation
import PassServerTesting
import Synchronization
import Testing

import SystemSupport

/// The one worker helper every background loop runs on: wake, sleep until due, drain on shutdown.
@Suite("Worker: the shared loop helper", .offCooperativePool, .timeLimit(.minutes(1)))
struct WorkerTests {
    /// Records each round; sleeps as told by `next`.
    final class Recorder: WorkerLoop, @unchecked Sendable {
        // Safe because the fields are only touched under `lock`.
        let lock = NSLock()
        var rounds: [(at: Date, stopping: Bool)] = []
        let next: (_ round: Int, _ stopping: Bool) -> Worker.Next

        init(next: @escaping (_ round: Int, _ stopping: Bool) -> Worker.Next) {
            self.next = next
        }

        func step(stopping: Bool) -> Worker.Next {
            let round = lock.withLock {
                rounds.append((Date(), stopping))
                return rounds.count
            }
            return next(round, stopping)
        }

        var count: Int { lock.withLock { rounds.count } }
        var history: [(at: Date, stopping: Bool)] { lock.withLock { rounds } }
    }

    /// Waits up to 20 s for `condition`; on a timeout the test stops here (what follows may index
    /// rounds that never ran).
    func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let deadline = Date().addingTimeInterval(20)
        while !condition() && Date() < deadline { usleep(1_000) }
        try #require(condition(), "timed out after 20 s", sourceLocation: sourceLocation)
    }

    @Test("a loop asleep until woken runs again on wake(), and a wake during a round is not lost")
    func wake() throws {
        let worker = Worker(name: "test-worker")
        let loop = Recorder { _, stopping in stopping ? .done : .sleep(until: nil) }
        worker.start(loop)
        defer { worker.shutdown() }
        try waitUntil { loop.count == 1 }
        // Nothing wakes it: it stays asleep (the first round shows it could run).
        usleep(200_000)
        #expect(loop.count == 1)
        worker.wake()
        try waitUntil { loop.count == 2 }
        worker.wake()
        worker.wake()
        try waitUntil { loop.count >= 3 }
        usleep(100_000)
        #expect(loop.count <= 4, "two wakes close together run at most two rounds")
    }

    @Test("a loop sleeps until the time it asks for, not less")
    func sleepsUntilDue() throws {
        let worker = Worker(name: "test-worker")
        let loop = Recorder { round, stopping in
            if stopping { return .done }
            return round < 3 ? .sleep(until: Date().addingTimeInterval(0.2)) : .sleep(until: nil)
        }
        worker.start(loop)
        defer { worker.shutdown() }
        try waitUntil { loop.count == 3 }
        let times = loop.history.map(\.at)
        #expect(times[1].timeIntervalSince(times[0]) >= 0.19)
        #expect(times[2].timeIntervalSince(times[1]) >= 0.19)
    }

    @Test("shutdown lets the loop drain (rounds with stopping set) and waits until it is done; a second shutdown returns")
    func drains() throws {
        let worker = Worker(name: "test-worker")
        let drained = Atomic<Int>(0)
        let loop = Recorder { _, stopping in
            guard stopping else { return .sleep(until: nil) }
            // Three more rounds to finish what is in flight, then done.
            return drained.add(1, ordering: .relaxed).newValue < 3 ? .again : .done
        }
        worker.start(loop)
        try waitUntil { loop.count == 1 }
        worker.shutdown()
        #expect(drained.load(ordering: .relaxed) == 3)
        #expect(loop.history.filter(\.stopping).count == 3)
        worker.shutdown()
        #expect(worker.isStopping)
    }

    @Test("a periodic worker runs at start, not again before its interval, and stops on shutdown")
    func periodic() throws {
        let runs = Atomic<Int>(0)
        let periodic = Worker.periodic(name: "test-periodic", interval: 3_600) { shouldStop in
            #expect(!shouldStop())
            runs.add(1, ordering: .relaxed)
        }
        periodic.start()
        try waitUntil { runs.load(ordering: .relaxed) == 1 }
        // A wake before the interval is over does not run the work again.
        periodic.worker.wake()
        usleep(200_000)
        #expect(runs.load(ordering: .relaxed) == 1)
        periodic.shutdown()
        #expect(runs.load(ordering: .relaxed) == 1)
    }
}

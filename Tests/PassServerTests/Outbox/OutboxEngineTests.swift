import Foundation
import Logging
import PassServerTesting
import Synchronization
import Testing

@testable import PassServer

/// The outbox engine over a channel that is not pushes (`MemoryChannel`): what any outbox built on
/// it (pushes, mail) gets: answers from the sender's thread recorded in batches on the engine's
/// own thread, bounded sends in flight, pacing, halts with a single probe, a drain on shutdown.
@Suite("Outbox engine: any channel on one worker thread", .offCooperativePool, .timeLimit(.minutes(2)))
struct OutboxEngineTests {
    let sink = MemorySink()

    func engine(
        _ channel: MemoryChannel, settings: OutboxSettings = OutboxSettings(), pacing: any OutboxPacing = Unpaced(),
        now: @escaping @Sendable () -> Date = Date.init
    ) -> OutboxEngine<MemoryChannel> {
        OutboxEngine(
            channel: channel, settings: settings, pacing: pacing, logger: Logger(label: "outbox", sink: sink), name: "test-outbox",
            activity: "test sending", now: now
        )
    }

    func waitUntil(_ what: String, _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let deadline = Date().addingTimeInterval(30)
        while !condition() && Date() < deadline { usleep(2_000) }
        #expect(condition(), "\(what)", sourceLocation: sourceLocation)
    }

    @Test("answers arrive on the sender's thread and are recorded in bulk on the engine's thread, each exactly once")
    func answersRecordedInBulk() {
        let channel = MemoryChannel()
        channel.enqueue(500, due: Date())
        // The first batch is held on the engine's thread until the sender has answered all 500:
        // whatever arrived meanwhile must make ONE more batch, not one record per answer.
        let allAnswered = DispatchSemaphore(value: 0)
        channel.sender.afterSend.withLock { $0 = { allAnswered.signal() } }
        let first = Atomic<Bool>(true)
        channel.beforeRecord.withLock { hook in
            hook = { if first.exchange(false, ordering: .relaxed) { _ = allAnswered.wait(timeout: .now() + 30) } }
        }
        let engine = engine(channel, settings: OutboxSettings(batchSize: 500, maxInFlight: 1_000))
        engine.start()
        defer { engine.shutdown() }
        waitUntil("every row recorded") { channel.remaining == 0 }

        let seen = channel.seen.withLock { $0 }
        #expect(channel.sender.sentIDs == Array(1...500))
        #expect(channel.recordedIDs.sorted() == Array(1...500), "each answer recorded exactly once")
        #expect(seen.batches.count <= 2, "batches: \(seen.batches.map(\.ids.count))")
        #expect(Set(seen.batches.map(\.thread)) == ["test-outbox"])
    }

    @Test("no more than maxInFlight rows are out at once; answers coming back make room for the rest")
    func boundedInFlight() {
        // Nothing is answered until released: the engine must stop at its bound.
        let channel = MemoryChannel(sender: MemoryChannel.Sender { _ in nil })
        channel.enqueue(300, due: Date())
        let engine = engine(channel, settings: OutboxSettings(batchSize: 40, maxInFlight: 100, pollInterval: 0.05))
        engine.start()
        defer { engine.shutdown() }
        waitUntil("the bound reached") { channel.sender.heldCount == 100 }
        usleep(300_000)
        #expect(channel.sender.sentIDs.count == 100, "200 more rows were due; none may leave while 100 are unanswered")
        #expect(channel.seen.withLock { $0.claims.map(\.limit) }.allSatisfy { $0 <= 40 })

        channel.sender.answer.withLock { $0 = { _ in .accepted } }
        channel.sender.release()
        waitUntil("every row recorded") { channel.remaining == 0 }
        #expect(channel.sender.sentIDs.sorted() == Array(1...300))
    }

    @Test("the engine claims no more than its pacing allows and waits while the allowance is 0")
    func paced() {
        let channel = MemoryChannel()
        channel.enqueue(200, due: Date())
        let allowance = ManualPacing.Allowance()
        allowance.value.withLock { $0 = 0 }
        let engine = engine(channel, settings: OutboxSettings(batchSize: 500, pollInterval: 0.05), pacing: ManualPacing(allowance: allowance))
        engine.start()
        defer { engine.shutdown() }
        // The engine is at work (it asks the pacing every recheck) and sends nothing.
        waitUntil("the engine asked the pacing") { allowance.askedCount >= 10 }
        usleep(100_000)
        #expect(channel.sender.sentIDs.isEmpty)
        allowance.value.withLock { $0 = 30 }
        waitUntil("30 sent") { channel.sender.sentIDs.count == 30 }
        let askedAt30 = allowance.askedCount
        waitUntil("the engine asked the pacing again") { allowance.askedCount >= askedAt30 + 10 }
        usleep(100_000)
        #expect(channel.sender.sentIDs.count == 30, "170 rows were due; the allowance was used up")
        allowance.value.withLock { $0 = nil }
        waitUntil("every row recorded") { channel.remaining == 0 }
        #expect(channel.sender.sentIDs.count == 200)
    }

    @Test("a halting answer pauses every send; after the pause one probe goes out alone, and its acceptance resumes sending")
    func haltAndProbe() {
        let clock = Mutex(Date())
        let refusing = Atomic<Bool>(true)
        let channel = MemoryChannel(sender: MemoryChannel.Sender { _ in refusing.load(ordering: .relaxed) ? .refusesOurCredentials : .accepted })
        channel.enqueue(10, due: clock.withLock { $0 })
        let engine = engine(channel, settings: OutboxSettings(pollInterval: 0.05, haltPause: 300), now: { clock.withLock { $0 } })
        engine.start()
        defer { engine.shutdown() }
        waitUntil("the halt recorded") { channel.seen.withLock { !$0.halts.isEmpty } && channel.sender.heldCount == 0 && channel.remaining == 10 }
        #expect(engine.isHalted)
        // New rows due now are not sent during the pause (they would be, unhalted: see the end).
        channel.enqueue(5, due: clock.withLock { $0 })
        engine.wake()
        usleep(300_000)
        #expect(channel.sender.sentIDs.count == 10)

        refusing.store(false, ordering: .relaxed)
        clock.withLock { $0 = $0.addingTimeInterval(301) }
        engine.wake()
        waitUntil("resumed") { channel.seen.withLock { $0.resumes } == 1 }
        waitUntil("every row recorded") { channel.remaining == 0 }
        let sizes = channel.sender.sent.withLock { $0.sizes }
        #expect(sizes.first == 10)
        #expect(sizes.dropFirst().first == 1, "the probe goes out alone: \(sizes)")
        #expect(sizes.reduce(0, +) == 25)
        #expect(!engine.isHalted)
    }

    @Test("shutdown waits for the answers still owed and records them before it returns")
    func drainsOnShutdown() {
        let channel = MemoryChannel(sender: MemoryChannel.Sender { _ in nil })
        channel.enqueue(50, due: Date())
        let engine = engine(channel, settings: OutboxSettings(drainTimeout: 30))
        engine.start()
        waitUntil("all sent") { channel.sender.heldCount == 50 }
        // The answers come back while shutdown is already waiting.
        let releaser = Thread {
            usleep(300_000)
            channel.sender.release()
        }
        releaser.start()
        engine.shutdown()
        #expect(channel.recordedIDs.sorted() == Array(1...50))
        #expect(channel.remaining == 0)
    }
}

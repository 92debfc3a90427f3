import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Synchronization
import Testing

@Suite("Revision ordering under concurrency", .offCooperativePool, .timeLimit(.minutes(3)))
struct ConcurrencyTests {
    /// Several threads update distinct passes while an observer reads the revisions: whenever the
    /// observer sees revision R committed, every revision below R that any update took is already
    /// visible too (a phone holding tag R never misses an earlier change).
    @Test(arguments: Backend.allCases)
    func revisionsBecomeVisibleInOrder(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let threads = 4
        let perThread = 15
        for index in 0..<(threads * perThread) { try fixture.makePass(serial: "C\(index)") }
        let baseline = try fixture.store.execute("SELECT max(revision) AS r FROM passes").first?.int64("r") ?? 0
        let store = fixture.store
        let committed = Mutex<[Int64]>([])
        let observations = Mutex<[Set<Int64>]>([])
        let observerErrors = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
        let observing = DispatchSemaphore(value: 0)
        let observerDone = DispatchSemaphore(value: 0)
        Thread {
            while !stop.load(ordering: .relaxed) {
                do {
                    let rows = try store.execute("SELECT revision FROM passes WHERE revision > \(baseline)")
                    let seen = Set(try rows.map { try $0.int64("revision") })
                    let first = observations.withLock { $0.append(seen); return $0.count == 1 }
                    if first { observing.signal() }
                } catch {
                    observerErrors.withLock { $0.append("\(error)") }
                }
            }
            observerDone.signal()
        }.start()
        // The observer reads while the updates commit, not only after them.
        guard observing.wait(timeout: .now() + 60) == .success else {
            stop.store(true, ordering: .relaxed)
            Issue.record("the observer made no observation: \(observerErrors.withLock { $0 })")
            return
        }
        try onThreads(threads) { thread in
            for step in 0..<perThread {
                let update = try store.withSession(.write) {
                    try $0.passes.updatePass(
                        passTypeIdentifier: StoreFixture.passType, serialNumber: "C\(thread * perThread + step)",
                        change: PassChange(attendeeName: "T\(thread)-\(step)"), now: Date()
                    )
                }
                committed.withLock { $0.append(update.pass.revision) }
            }
        }
        stop.store(true, ordering: .relaxed)
        #expect(observerDone.wait(timeout: .now() + 60) == .success)
        #expect(observerErrors.withLock { $0 } == [])
        let revisions = committed.withLock { $0 }.sorted()
        #expect(revisions.count == threads * perThread)
        #expect(Set(revisions).count == revisions.count)
        #expect(revisions == Array((baseline + 1)...(baseline + Int64(threads * perThread))))
        for seen in observations.withLock({ $0 }) {
            guard let top = seen.max() else { continue }
            let missing = revisions.filter { $0 < top && !seen.contains($0) }
            #expect(missing.isEmpty, "saw \(top) before \(missing)")
        }
    }

    /// SQLite has one writer. A request that waits for it gets it before a thread that was writing
    /// when it arrived can write again: release hands the writer over instead of letting the
    /// releasing thread take it straight back (which, in a loop, starves the waiter into a 503).
    @Test("SQLite: a waiting writer goes before the thread that just released the writer")
    func waitingWriterIsServedFirst() throws {
        let fixture = try StoreFixture(.sqlite)
        let store = fixture.store
        let order = Mutex<[String]>([])
        let waiterCalling = DispatchSemaphore(value: 0)
        let waiterDone = DispatchSemaphore(value: 0)
        try store.withSession(.write) { _ in
            Thread {
                waiterCalling.signal()
                _ = try? store.withSession(.write) { _ in order.withLock { $0.append("waiter") } }
                waiterDone.signal()
            }.start()
            waiterCalling.wait()
            // Time for the waiter to block on the writer (it has nothing else to do).
            usleep(500_000)
        }
        // Released just now, with the waiter queued: asking again must queue behind it.
        try store.withSession(.write) { _ in order.withLock { $0.append("again") } }
        #expect(waiterDone.wait(timeout: .now() + 30) == .success)
        #expect(order.withLock { $0 } == ["waiter", "again"])
    }
}

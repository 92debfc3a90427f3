import Foundation
import PassIdentifiers
import PassServerTesting
import Synchronization
import Testing

@testable import Storage

@Suite("Revision counter: show and advance", .offCooperativePool, .timeLimit(.minutes(3)))
struct RevisionCounterTests {
    @Test("a new database starts at 0; each change moves the counter to the revision it took", arguments: Backend.allCases)
    func currentFollowsChanges(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        #expect(try fixture.store.withSession(.read) { try $0.revisions.currentRevision() } == 0)
        let pass = try fixture.makePass()
        #expect(try fixture.store.withSession(.read) { try $0.revisions.currentRevision() } == pass.revision)
        let event = try fixture.makeEvent()
        #expect(event.revision == pass.revision + 1)
        #expect(try fixture.store.withSession(.read) { try $0.revisions.currentRevision() } == event.revision)
    }

    @Test("advance raises the counter by exactly N; later changes take revisions above it", arguments: Backend.allCases)
    func advanceByN(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let pass = try fixture.makePass(serial: "R1")
        let start = try fixture.store.withSession(.read) { try $0.revisions.currentRevision() }

        let advance = try fixture.store.withSession(.write) { try $0.revisions.advanceRevision(by: 1000) }
        #expect(advance == RevisionAdvance(before: start, after: start + 1000))
        #expect(try fixture.store.withSession(.read) { try $0.revisions.currentRevision() } == start + 1000)
        let once = try fixture.store.withSession(.write) { try $0.revisions.advanceRevision(by: 1) }
        #expect(once == RevisionAdvance(before: start + 1000, after: start + 1001))

        let update = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: "R1", change: PassChange(attendeeName: "Grace"), now: Date()
            )
        }
        #expect(update.pass.revision == once.after + 1)
        #expect(update.pass.revision > pass.revision)
        let inserted = try fixture.makePass(serial: "R2")
        #expect(inserted.revision == once.after + 2)
        // A phone holding any tag up to the advanced value is told about both passes.
        let changed = try fixture.store.withSession(.read) { session in
            try session.execute("SELECT serial_number FROM passes WHERE revision > \(once.after) ORDER BY serial_number")
                .map { try $0.string("serial_number") }
        }
        #expect(changed == ["R1", "R2"])
    }

    @Test("zero, negative and overflowing amounts throw invalidValue and leave the counter as it was", arguments: Backend.allCases)
    func rejectsBadAmounts(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makePass()
        let start = try fixture.store.withSession(.read) { try $0.revisions.currentRevision() }
        for amount: Int64 in [0, -1, -1_000_000, .min, .max] {
            #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.revisions.advanceRevision(by: amount) } } == .invalidValue, "by \(amount)")
            #expect(try fixture.store.withSession(.read) { try $0.revisions.currentRevision() } == start, "by \(amount)")
        }
        // Up to Int64.max exactly is allowed; one more is refused without moving the counter.
        let room = Int64.max - start
        let top = try fixture.store.withSession(.write) { try $0.revisions.advanceRevision(by: room - 1) }
        #expect(top.after == .max - 1)
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.revisions.advanceRevision(by: 2) } } == .invalidValue)
        #expect(try fixture.store.withSession(.read) { try $0.revisions.currentRevision() } == .max - 1)
        #expect(try fixture.store.withSession(.write) { try $0.revisions.advanceRevision(by: 1) }.after == .max)
    }

    /// Threads change passes while another advances the counter several times. Every change takes
    /// a distinct revision, each pass's revisions only grow, no change lands inside a range an
    /// advance skipped, and the counter ends exactly at start + changes + the sum of the advances.
    @Test("advancing while changes commit never yields a duplicate or decreasing revision", arguments: Backend.allCases)
    func concurrentAdvance(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let writers = 3
        let perWriter = 12
        let advances = 6
        let step: Int64 = 100
        for index in 0..<writers { try fixture.makePass(serial: "W\(index)") }
        let start = try fixture.store.withSession(.read) { try $0.revisions.currentRevision() }
        let store = fixture.store
        let taken = Mutex<[Int: [Int64]]>([:])
        let skipped = Mutex<[RevisionAdvance]>([])

        try onThreads(writers + 1) { thread in
            if thread == writers {
                for _ in 0..<advances {
                    let advance = try store.withSession(.write) { try $0.revisions.advanceRevision(by: step) }
                    skipped.withLock { $0.append(advance) }
                }
                return
            }
            for change in 0..<perWriter {
                let update = try store.withSession(.write) {
                    try $0.passes.updatePass(
                        passTypeIdentifier: StoreFixture.passType, serialNumber: "W\(thread)",
                        change: PassChange(attendeeName: "Writer \(thread) change \(change)"), now: Date()
                    )
                }
                taken.withLock { $0[thread, default: []].append(update.pass.revision) }
            }
        }

        let perPass = taken.withLock { $0 }
        let all = perPass.values.flatMap { $0 }
        #expect(all.count == writers * perWriter)
        #expect(Set(all).count == all.count, "no revision is taken twice")
        #expect(all.allSatisfy { $0 > start })
        for (thread, revisions) in perPass {
            #expect(revisions == revisions.sorted() && Set(revisions).count == revisions.count, "pass W\(thread) went backwards")
        }
        let ranges = skipped.withLock { $0 }
        #expect(ranges.count == advances)
        for (earlier, later) in zip(ranges, ranges.dropFirst()) {
            #expect(later.before >= earlier.after, "advances only move forwards")
        }
        for range in ranges {
            #expect(range.after == range.before + step)
            #expect(all.allSatisfy { $0 <= range.before || $0 > range.after }, "a change inside \(range)")
        }
        let end = try store.withSession(.read) { try $0.revisions.currentRevision() }
        #expect(end == start + Int64(writers * perWriter) + Int64(advances) * step)
        #expect(end == max(all.max() ?? start, ranges.last?.after ?? start))
    }
}

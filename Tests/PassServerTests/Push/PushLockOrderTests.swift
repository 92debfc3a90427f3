import Foundation
import PassServerTesting
import Storage
import Synchronization
import Testing

@testable import PassServer

/// Admin edits enqueueing pushes for many tokens while the dispatcher records the answers for the
/// same outbox rows: both lock those rows in one order, so PostgreSQL never has to break a
/// deadlock (which would answer the edit 500 or lose a batch of outcomes).
@Suite("Push dispatcher: lock order", .offCooperativePool, .serialized, .timeLimit(.minutes(3)))
struct PushLockOrderTests {
    static let minimumEdits = 40

    @Test("edits of a ticket with 40 devices while its pushes are recorded: no deadlock", arguments: Backend.allCases)
    func editsDuringRecording(backend: Backend) async throws {
        let fixture = try PushFixture(backend)
        defer { fixture.stop() }
        let (serial, tokens) = try PushResilienceTests.bulkRegistrations(fixture, count: 40)
        let statuses = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let app = fixture.app
        let started = Date()
        for worker in 0..<2 {
            Thread {
                // At least 3 s and 40 edits (a loaded machine is slow), at most 30 s.
                var seat = worker * 1_000_000
                while Date() < started.addingTimeInterval(30),
                    Date() < started.addingTimeInterval(3) || statuses.withLock({ $0.count }) < Self.minimumEdits {
                    seat += 1
                    let status = (try? app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"seat":"S\#(seat)"}"#).status) ?? 0
                    statuses.withLock { $0.append(status) }
                }
                done.signal()
            }.start()
        }
        await offPool { for _ in 0..<2 { done.wait() } }
        try await eventually("outbox drained", timeout: 60) { try fixture.counts.summary == [0, 0, 0] }

        let answered = statuses.withLock { $0 }
        #expect(answered.count >= Self.minimumEdits, "\(answered.count) edits")
        #expect(answered.allSatisfy { $0 == 200 }, "statuses \(Dictionary(grouping: answered, by: { $0 }).mapValues(\.count))")
        let lines = fixture.app.logs.lines
        #expect(!lines.contains { $0.contains("deadlock") }, "\(lines.filter { $0.contains("deadlock") }.prefix(2))")
        // Rounds really overlapped: each token was pushed several times while edits went on.
        let pushes = fixture.fake.pushes.filter { $0.status == 200 }
        #expect(tokens.allSatisfy { token in pushes.filter { $0.token == token }.count >= 2 })
        print("\(backend): \(answered.count) edits, \(pushes.count) pushes")
    }
}

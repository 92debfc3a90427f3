import Foundation
import PassServerTesting
import Storage
import Synchronization
import Testing

@testable import PassServer

/// Admin edits enqueueing pushes for many tokens while the dispatcher records the answers for the
/// same outbox rows: both lock those rows in one order, so PostgreSQL never has to break a
/// deadlock (which would answer the edit 500 or lose a batch of outcomes).
@Suite("Push dispatcher: lock order", .serialized)
struct PushLockOrderTests {
    @Test("edits of a ticket with 40 devices while its pushes are recorded: no deadlock", arguments: Backend.allCases)
    func editsDuringRecording(backend: Backend) async throws {
        let fixture = try PushFixture(backend)
        defer { fixture.stop() }
        let (serial, tokens) = try PushResilienceTests.bulkRegistrations(fixture, count: 40)
        let statuses = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let app = fixture.app
        for worker in 0..<2 {
            Thread {
                let deadline = Date().addingTimeInterval(3)
                var seat = worker * 1_000_000
                while Date() < deadline {
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
        #expect(answered.count > 20, "\(answered.count) edits")
        #expect(answered.allSatisfy { $0 == 200 }, "statuses \(Dictionary(grouping: answered, by: { $0 }).mapValues(\.count))")
        let lines = fixture.app.logs.lines
        #expect(!lines.contains { $0.contains("deadlock") }, "\(lines.filter { $0.contains("deadlock") }.prefix(2))")
        // Rounds really overlapped: each token was pushed several times while edits went on.
        let pushes = fixture.fake.pushes.filter { $0.status == 200 }
        #expect(tokens.allSatisfy { token in pushes.filter { $0.token == token }.count >= 2 })
        print("\(backend): \(answered.count) edits, \(pushes.count) pushes")
    }
}

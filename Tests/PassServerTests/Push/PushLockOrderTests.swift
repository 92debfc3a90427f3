import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Synchronization
import Testing

@testable import PassServer

/// Admin edits enqueueing pushes for many tokens while the dispatcher records the answers for the
/// same outbox rows: both lock those rows in one order, so PostgreSQL never has to break a
/// deadlock (which would answer the edit 503 or hold a batch of outcomes back).
///
/// The check reads the application's log, so two controls provoke a real deadlock on each of
/// those paths and show that it is logged in words the check finds.
@Suite("Push dispatcher: lock order", .offCooperativePool, .serialized, .timeLimit(.minutes(3)))
struct PushLockOrderTests {
    static let minimumEdits = 40

    /// The log lines that speak of a deadlock: what `editsDuringRecording` requires to be none, and
    /// its controls to be some.
    static func deadlockLines(_ lines: [String]) -> [String] {
        lines.filter { $0.contains("deadlock") }
    }

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
        let deadlocks = Self.deadlockLines(fixture.app.logs.lines)
        #expect(deadlocks.isEmpty, "\(deadlocks.prefix(2))")
        // Rounds really overlapped: each token was pushed several times while edits went on.
        let pushes = fixture.fake.pushes.filter { $0.status == 200 }
        #expect(tokens.allSatisfy { token in pushes.filter { $0.token == token }.count >= 2 })
        print("\(backend): \(answered.count) edits, \(pushes.count) pushes")
    }

    @Test("control: an edit broken by a deadlock answers 503 (try again) and logs it in words the check finds")
    func deadlockedEditIsLogged() async throws {
        let fixture = try PushFixture(.postgres)
        defer { fixture.stop() }
        let (serial, _) = try PushResilienceTests.bulkRegistrations(fixture, count: 2)
        let app = fixture.app
        let status = Mutex<Int?>(nil)
        // The edit locks the pass, then waits for the registrations held here; this connection
        // then asks for the pass.
        try await Self.deadlock(
            app,
            first: "SELECT 1 AS one FROM registrations WHERE serial_number = \(serial) FOR UPDATE",
            second: "SELECT 1 AS one FROM passes WHERE serial_number = \(serial) FOR UPDATE"
        ) {
            let answer = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"seat":"S2"}"#).status
            status.withLock { $0 = answer }
        }
        #expect(status.withLock { $0 } == 503, "the edit was the deadlock's victim")
        let deadlocks = Self.deadlockLines(app.logs.lines)
        #expect(deadlocks.contains { $0.contains("status=503") && $0.contains("40P01") }, "\(app.logs.lines.suffix(5))")
        print("logged: \(deadlocks.first ?? "nothing")")
    }

    @Test("control: a recording of answers broken by a deadlock logs it in words the check finds, and is done again")
    func deadlockedRecordingIsLogged() async throws {
        let fixture = try PushFixture(.postgres)
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        // A 410: recording it locks the outbox row, then the registrations of the dead token.
        let stamp = Int64(Date().addingTimeInterval(5).timeIntervalSince1970 * 1_000)
        fixture.fake.script(token: phone.pushToken, [.unregistered(timestampMilliseconds: stamp)])
        // Held here from before the edit, `FOR KEY SHARE` lets the edit give the registrations a
        // new revision (no key column changes) but not the recording lock them; this connection
        // then asks for the outbox row the recording holds.
        try await Self.deadlock(
            fixture.app,
            first: "SELECT 1 AS one FROM registrations WHERE serial_number = \(serial) FOR KEY SHARE",
            second: "SELECT 1 AS one FROM push_outbox FOR UPDATE"
        ) {
            try fixture.change(serial)
        }
        try await eventually("the broken recording logged", timeout: 30) {
            Self.deadlockLines(fixture.app.logs.lines).contains { $0.contains("push dispatch waits for it") && $0.contains("40P01") }
        }
        print("logged: \(Self.deadlockLines(fixture.app.logs.lines).first ?? "nothing")")
        // A lost lock race is waited out like a busy database: the answers are kept and recorded
        // once the locks are free, so the 410 still prunes the dead token's registration.
        try await eventually("the recording done again", timeout: 30) {
            try fixture.registrations(serial) == 0
                && fixture.app.logs.lines.contains { $0.contains("database available again; push dispatch resumes") }
        }
    }

    /// A real deadlock between the application and a connection of the test's own. That
    /// connection takes the locks of `first`; `provoke` (on a thread of its own) makes the
    /// application take locks of its own and then wait for those; once one of the application's
    /// connections waits for the test's, the test's asks for the locks of `second`, which the
    /// application holds. PostgreSQL breaks the cycle by failing the application's statement: the
    /// test's connection looks for deadlocks only after 60 s, the application's after the default
    /// `deadlock_timeout` of 1 s. Returns once the cycle is broken and `provoke` has returned.
    static func deadlock(
        _ app: TestApp, first: SQLQuery, second: SQLQuery, provoke: @escaping @Sendable () throws -> Void
    ) async throws {
        try await onOwnThread {
            let own = PostgresStore(url: app.databaseURL, options: StoreOptions(poolSize: 1, statementTimeout: .seconds(60)))
            defer { own.close() }
            let provoked = DispatchSemaphore(value: 0)
            let failure = Mutex<(any Error)?>(nil)
            try own.transaction { session in
                try session.execute("SET LOCAL deadlock_timeout = '60s'")
                guard let pid = try session.execute("SELECT pg_backend_pid() AS pid").first?.int("pid") else {
                    throw AdminSupport.Failure(description: "no backend pid")
                }
                try session.execute(first)
                Thread {
                    do { try provoke() } catch { failure.withLock { $0 = error } }
                    provoked.signal()
                }.start()
                let waiting: SQLQuery = "SELECT count(*) AS n FROM pg_stat_activity WHERE \(pid) = ANY(pg_blocking_pids(pid))"
                let deadline = Date().addingTimeInterval(30)
                while try app.store.execute(waiting).first?.int("n") == 0 {
                    guard Date() < deadline else { throw AdminSupport.Failure(description: "the application never waited for the test's locks") }
                    usleep(20_000)
                }
                try session.execute(second)
            }
            guard provoked.wait(timeout: .now() + 60) == .success else { throw AdminSupport.Failure(description: "provoking did not return") }
            if let error = failure.withLock({ $0 }) { throw error }
        }
    }
}

import Foundation
import Logging
import PassServerFixtures
import PassServerTesting
import Storage
import Synchronization
import Testing

@testable import PassServer

@Suite("Retention sweep", .offCooperativePool, .timeLimit(.minutes(4)))
struct RetentionSweepTests {
    /// A whole-millisecond instant, so 1 ms either side of a boundary is exact in storage.
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    /// A fresh, migrated database of `backend`, and its URL.
    private static func store(_ backend: Backend) throws -> (store: any Store, url: String) {
        let directory = try TestCertificates.temporaryDirectory(prefix: "retention")
        let url = try backend.freshDatabaseURL(in: directory)
        let store = try Storage.openStore(url: url, options: StoreOptions())
        try store.migrate()
        return (store, url)
    }

    private static func sweep(
        _ store: any Store, retention: Configuration.Retention = .init(), holder: String = "test", batchSize: Int = 1_000,
        sink: MemorySink = MemorySink()
    ) -> RetentionSweep {
        var sweep = RetentionSweep(
            store: store, retention: retention, logger: Logger(label: "retention", sink: sink), holder: holder, now: { Self.now }
        )
        sweep.batchSize = batchSize
        return sweep
    }

    @Test("removes exactly the rows 1 ms past their retention, keeps those at it or younger, and logs the counts", arguments: Backend.allCases)
    func boundaries(backend: Backend) throws {
        let (store, _) = try Self.store(backend)
        defer { store.close() }
        try RetentionRows.populate(store, now: Self.now, margin: 0.001, extraPushLog: 4)
        let sink = MemorySink()
        let removed = try Self.sweep(store, batchSize: 2, sink: sink).run()
        #expect(removed == RetentionRows.expected(extraPushLog: 4))
        #expect(try RetentionRows.remaining(store) == RetentionRows.survivors())
        let line = try #require(sink.lines.first { $0.contains("retention sweep removed old rows") })
        for part in ["push_log=5", "push_outbox_failed=1", "mail_outbox_failed=1", "google_outbox_failed=1", "jobs=1", "registrations=2", "devices=1"] {
            #expect(line.contains(part), "\(part) in \(line)")
        }
        // A second sweep finds nothing more, and says so too.
        #expect(try Self.sweep(store, sink: sink).run() == RetentionSweep.Removed())
        let last = try #require(sink.lines.last { $0.contains("retention sweep removed old rows") })
        #expect(last.contains("push_log=0") && last.contains("registrations=0"), "\(last)")
    }

    @Test("Google Wallet callback nonces go 30 days after they came; younger ones stay", arguments: Backend.allCases)
    func googleWalletNonces(backend: Backend) throws {
        let (store, _) = try Self.store(backend)
        defer { store.close() }
        let event = try store.withSession(.write) {
            try $0.events.createEvent(NewEvent(name: "Gala", venue: "Hall", startsAt: Self.now, endsAt: nil, timeZone: "UTC", template: "event-ticket"), now: Self.now)
        }
        let pass = try store.withSession(.write) {
            try $0.passes.insertPass(NewPass(
                passTypeIdentifier: RetentionRows.passType, serialNumber: "GW-1", authenticationTokenHash: Array("a-GW-1".utf8),
                downloadTokenHash: Array("d-GW-1".utf8), eventID: event.id, attendeeName: "Ada", attendeeEmail: nil, seat: nil
            ), now: Self.now)
        }
        let age = RetentionSweep.googleWalletNonceAge
        try store.withSession(.write) { session in
            for (nonce, offset) in [("old", -0.001), ("edge", 0), ("young", 0.001)] {
                _ = try session.google.recordGoogleWalletCallback(passID: pass.id, eventID: event.id, nonce: nonce, saved: true, now: Self.now - age + offset)
            }
        }
        let removed = try #require(try Self.sweep(store).run())
        #expect(removed.googleWalletNonces == 1)
        let left = try store.withSession(.read) { try $0.execute("SELECT nonce FROM google_wallet_nonces ORDER BY nonce").map { try $0.string("nonce") } }
        #expect(left == ["edge", "young"])
        #expect(try store.withSession(.read) { try $0.google.googleWalletSaved(eventID: event.id) } == 1, "the ticket stays saved")
    }

    @Test("configured retentions move every boundary", arguments: Backend.allCases)
    func configuredRetention(backend: Backend) throws {
        let (store, _) = try Self.store(backend)
        defer { store.close() }
        var retention = Configuration.Retention()
        retention.pushLog = 3_600
        retention.jobs = 7_200
        retention.registrations = 86_400
        try RetentionRows.populate(store, now: Self.now, retention: retention, margin: 0.001)
        #expect(try Self.sweep(store, retention: retention).run() == RetentionRows.expected(extraPushLog: 0))
        #expect(try RetentionRows.remaining(store) == RetentionRows.survivors())
    }

    @Test("two processes on one PostgreSQL database: while one sweeps, the other's sweep does not run")
    func oneSweepAtATime() throws {
        let (first, url) = try Self.store(.postgres)
        defer { first.close() }
        let second = try Storage.openStore(url: url, options: StoreOptions())
        defer { second.close() }
        try RetentionRows.populate(first, now: Self.now, margin: 0.001, extraPushLog: 10)
        // The second sweep's outcome as it is: an error must not pass for a skipped sweep.
        let attempts = Mutex<[Result<RetentionSweep.Removed?, any Error>]>([])
        let seenDuring = Mutex<[String]>([])
        let removed = try Self.sweep(first, holder: "process-1", batchSize: 3).run(shouldStop: {
            // Called between the first sweep's batches, while it holds the lease.
            if attempts.withLock({ $0.isEmpty }) {
                let other = Result { try Self.sweep(second, holder: "process-2", batchSize: 3).run() }
                attempts.withLock { $0.append(other) }
                seenDuring.withLock { $0 = (try? RetentionRows.remaining(second)["jobs"]) ?? [] }
            }
            return false
        })
        let outcomes = attempts.withLock { $0 }
        #expect(outcomes.count == 1, "the second sweep was tried while the first ran")
        let outcome = try #require(outcomes.first)
        #expect(try outcome.get() == nil, "and skipped")
        #expect(seenDuring.withLock { $0 } == ["done-old", "done-young", "running"], "the first had not reached the jobs yet")
        #expect(removed == RetentionRows.expected(extraPushLog: 10), "the first sweep did all the work")
        // Once the first has finished, the second may sweep, and finds nothing left.
        #expect(try Self.sweep(second, holder: "process-2").run() == RetentionSweep.Removed())
    }

    @Test("a sweep asked to stop ends between batches and keeps what it removed", arguments: Backend.allCases)
    func stopsBetweenBatches(backend: Backend) throws {
        let (store, _) = try Self.store(backend)
        defer { store.close() }
        try RetentionRows.populate(store, now: Self.now, margin: 0.001, extraPushLog: 10)
        let removed = try #require(try Self.sweep(store, batchSize: 3).run(shouldStop: { true }))
        #expect(removed.pushLog == 3)
        #expect(try store.execute("SELECT count(*) AS n FROM push_log").first?.int("n") == 13 - 3)
        // The lease was given back: the next sweep runs and finishes the work.
        #expect(try Self.sweep(store, holder: "next").run()?.pushLog == 8)
    }

    @Test("a sweep whose lease expired and was taken over stops after its batch", arguments: Backend.allCases)
    func lostLease(backend: Backend) throws {
        let (store, _) = try Self.store(backend)
        defer { store.close() }
        try RetentionRows.populate(store, now: Self.now, margin: 0.001, extraPushLog: 10)
        var sweep = Self.sweep(store, holder: "slow", batchSize: 3)
        sweep.lease = .milliseconds(1)
        var takenOver = false
        let removed = try #require(try sweep.run(shouldStop: {
            // After the first batch the slow sweep's lease has expired and another process takes it.
            if !takenOver {
                takenOver = (try? store.withSession(.write) {
                    try $0.leases.acquireLease(RetentionSweep.leaseName, holder: "other", now: Self.now.addingTimeInterval(1), duration: .seconds(600))
                }) ?? false
            }
            return false
        }))
        #expect(takenOver)
        #expect(try store.withSession(.write) { try $0.leases.acquireLease(RetentionSweep.leaseName, holder: "third", now: Self.now, duration: .seconds(1)) } == false,
                "the lost lease was not released from under its new holder")
        #expect(removed.pushLog == 6, "the batch after the renewal that still succeeded, then it stopped")
        #expect(try RetentionRows.remaining(store)["jobs"] == ["done-old", "done-young", "running"])
    }

    @Test("the server sweeps by itself every RETENTION_INTERVAL", arguments: Backend.allCases)
    func serverSweeps(backend: Backend) async throws {
        let app = try TestApp.start(backend) { $0.retention.interval = 1 }
        defer { app.stop() }
        try RetentionRows.populate(app.store, now: Date(), margin: 3_600)
        // The rows are written in several statements, so a sweep may run between them: the counts
        // logged add up. A sweep logs after its commit, so the wait is for both.
        func logged() -> [Int] {
            app.logs.lines.filter { $0.contains("retention sweep removed old rows") }.compactMap { line -> Int? in
                guard let range = line.range(of: #"registrations=(\d+)"#, options: .regularExpression) else { return nil }
                return Int(line[range].dropFirst("registrations=".count))
            }
        }
        var left: [String: [String]] = [:]
        try await eventually("the old rows swept and the sweeps logged: left \(left), logged \(logged())", timeout: 60) {
            left = try RetentionRows.remaining(app.store)
            return left == RetentionRows.survivors(exactEdge: false) && logged().reduce(0, +) >= 2
        }
        let counts = logged()
        #expect(counts.reduce(0, +) == 2, "\(counts)")
    }
}

import Foundation
import PassIdentifiers
import PassServerTesting
import Synchronization
import Testing

@testable import Storage

@Suite("Retention and leases", .offCooperativePool, .timeLimit(.minutes(3)))
struct RetentionTests {
    /// A whole-millisecond instant, so ±1 ms is exact in storage.
    static let cutoff = Date(timeIntervalSince1970: 1_800_000_000)
    static let millisecond: TimeInterval = 0.001

    private func write<T>(_ fixture: StoreFixture, _ body: (StoreSession) throws -> T) throws -> T {
        try fixture.store.withSession(.write, body)
    }

    private func count(_ fixture: StoreFixture, _ table: String, _ condition: String = "1 = 1") throws -> Int {
        try fixture.store.execute(SQLQuery(unsafeRaw: "SELECT count(*) AS n FROM \(table) WHERE \(condition)")).first?.int("n") ?? -1
    }

    @Test(arguments: Backend.allCases)
    func pushLogGoesStrictlyBeforeTheCutoffInBatches(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let times = [-3600, -1, -Self.millisecond, 0, Self.millisecond, 3600].map { Self.cutoff.addingTimeInterval($0) }
        for (index, time) in times.enumerated() {
            try fixture.store.recordPushes([PushLogEntry(
                tokenHash: "h\(index)", passTypeIdentifier: StoreFixture.passType, status: 200, latencyMilliseconds: 1, createdAt: time
            )])
        }
        #expect(try write(fixture) { try $0.retention.deletePushLog(before: Self.cutoff, limit: 2) } == 2)
        #expect(try write(fixture) { try $0.retention.deletePushLog(before: Self.cutoff, limit: 2) } == 1)
        #expect(try write(fixture) { try $0.retention.deletePushLog(before: Self.cutoff, limit: 2) } == 0)
        let left = try fixture.store.execute("SELECT token_hash FROM push_log ORDER BY created_at").map { try $0.string("token_hash") }
        #expect(left == ["h3", "h4", "h5"], "the row exactly at the cutoff and younger ones stay")
    }

    @Test(arguments: Backend.allCases)
    func onlyFailedOutboxRowsOlderThanTheCutoffGo(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makePass(serial: "F")
        for index in 0..<4 { _ = try fixture.register(device: "d\(index)", token: .fixture("t\(index)"), serial: "F") }
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "F", change: PassChange(touch: true), now: Self.cutoff.addingTimeInterval(-86_400))
        }
        let rows = try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: Self.cutoff.addingTimeInterval(-86_400), lease: .seconds(30)) }.sorted { $0.pushToken.rawValue < $1.pushToken.rawValue }
        try #require(rows.count == 4)
        // t0 failed 1 ms before the cutoff, t1 exactly at it, t2 1 ms after; t3 is still pending (and old).
        try fixture.store.settle(rows[0], .failed(status: 400, reason: "BadPriority"), now: Self.cutoff.addingTimeInterval(-Self.millisecond))
        try fixture.store.settle(rows[1], .failed(status: 400, reason: "BadPriority"), now: Self.cutoff)
        try fixture.store.settle(rows[2], .failed(status: 400, reason: "BadPriority"), now: Self.cutoff.addingTimeInterval(Self.millisecond))
        try fixture.store.settle(rows[3], .retry(nextAttempt: Self.cutoff.addingTimeInterval(-3_600), status: 429, reason: nil), now: Date())
        #expect(try write(fixture) { try $0.retention.deleteFailedOutbox(before: Self.cutoff, limit: 100) } == 1)
        let left = try fixture.store.execute("SELECT push_token FROM push_outbox ORDER BY push_token").map { try $0.string("push_token") }
        #expect(left == ["t1", "t2", "t3"].map { PushToken.fixture($0).rawValue })
    }

    @Test(arguments: Backend.allCases)
    func onlyFinishedJobsOlderThanTheCutoffGo(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        try fixture.makePass(serial: "J", eventID: event.id)
        func job(finishedAt: Date?, state: String) throws -> String {
            let job = try fixture.store.withSession(.write) { try $0.jobs.createJob(kind: Job.repushKind, eventID: event.id, now: Self.cutoff.addingTimeInterval(-86_400)) }
            try fixture.store.execute("UPDATE jobs SET state = \(state), finished_at = \(finishedAt.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }) WHERE id = \(job.id)")
            return job.id
        }
        let doneOld = try job(finishedAt: Self.cutoff.addingTimeInterval(-Self.millisecond), state: "done")
        let failedOld = try job(finishedAt: Self.cutoff.addingTimeInterval(-86_400), state: "failed")
        let doneAtCutoff = try job(finishedAt: Self.cutoff, state: "done")
        let doneYoung = try job(finishedAt: Self.cutoff.addingTimeInterval(Self.millisecond), state: "done")
        let running = try job(finishedAt: nil, state: "running")
        let pending = try job(finishedAt: nil, state: "pending")
        #expect(try write(fixture) { try $0.retention.deleteFinishedJobs(before: Self.cutoff, limit: 1) } == 1)
        #expect(try write(fixture) { try $0.retention.deleteFinishedJobs(before: Self.cutoff, limit: 1) } == 1)
        #expect(try write(fixture) { try $0.retention.deleteFinishedJobs(before: Self.cutoff, limit: 1) } == 0)
        for id in [doneOld, failedOld] { #expect(try fixture.store.withSession(.read, { try $0.jobs.job(id: id) }) == nil) }
        for id in [doneAtCutoff, doneYoung, running, pending] { #expect(try fixture.store.withSession(.read, { try $0.jobs.job(id: id) }) != nil) }
    }

    @Test(arguments: Backend.allCases)
    func registrationsOfEndedEventsGoWithDevicesLeftEmpty(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        func event(starts: TimeInterval, ends: TimeInterval?) throws -> String {
            try fixture.store.withSession(.write) { session in
                try session.events.createEvent(NewEvent(
                    name: "E", venue: "V", startsAt: Self.cutoff.addingTimeInterval(starts), endsAt: ends.map { Self.cutoff.addingTimeInterval($0) },
                    timeZone: "UTC", template: "event"
                ), now: Date())
            }.id
        }
        let endedJustBefore = try event(starts: -86_400, ends: -Self.millisecond)
        let endsAtCutoff = try event(starts: -86_400, ends: 0)
        let startedBeforeNoEnd = try event(starts: -Self.millisecond, ends: nil)
        let startedAfterNoEnd = try event(starts: Self.millisecond, ends: nil)
        let startedLongAgoEndsLater = try event(starts: -86_400 * 30, ends: Self.millisecond)
        for (serial, eventID): (SerialNumber, String) in [("gone1", endedJustBefore), ("kept1", endsAtCutoff), ("gone2", startedBeforeNoEnd),
                                  ("kept2", startedAfterNoEnd), ("kept3", startedLongAgoEndsLater)] {
            try fixture.makePass(serial: serial, eventID: eventID)
        }
        try fixture.makePass(serial: "no-event")
        _ = try fixture.register(device: "only-old", token: .fixture("t1"), serial: "gone1")
        _ = try fixture.register(device: "only-old", token: .fixture("t1"), serial: "gone2")
        _ = try fixture.register(device: "mixed", token: .fixture("t2"), serial: "gone1")
        _ = try fixture.register(device: "mixed", token: .fixture("t2"), serial: "kept1")
        for serial: SerialNumber in ["kept2", "kept3", "no-event"] { _ = try fixture.register(device: "young", token: .fixture("t3"), serial: serial) }

        let first = try write(fixture) { try $0.retention.deleteRegistrations(ofEventsEndedBefore: Self.cutoff, limit: 2) }
        let second = try write(fixture) { try $0.retention.deleteRegistrations(ofEventsEndedBefore: Self.cutoff, limit: 2) }
        let third = try write(fixture) { try $0.retention.deleteRegistrations(ofEventsEndedBefore: Self.cutoff, limit: 2) }
        #expect(first.registrations == 2 && second.registrations == 1 && third == RegistrationsRemoved(registrations: 0, devices: 0))
        #expect(first.devices + second.devices == 1, "only the device left with nothing is forgotten")
        let left = try fixture.store.execute("SELECT device_library_identifier AS d, serial_number AS s FROM registrations ORDER BY d, s")
            .map { "\(try $0.string("d"))/\(try $0.string("s"))" }
        #expect(left == ["mixed/kept1", "young/kept2", "young/kept3", "young/no-event"])
        let devices = try fixture.store.execute("SELECT device_library_identifier AS d FROM devices ORDER BY d").map { try $0.string("d") }
        #expect(devices == ["mixed", "young"])
        #expect(try count(fixture, "passes") == 6, "passes themselves stay")
    }

    @Test(arguments: Backend.allCases)
    func aLeaseHasOneHolderUntilReleasedOrExpired(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Self.cutoff
        func acquire(_ holder: String, at time: Date) throws -> Bool {
            try write(fixture) { try $0.leases.acquireLease("retention", holder: holder, now: time, duration: .seconds(60)) }
        }
        #expect(try acquire("a", at: now))
        #expect(try acquire("b", at: now.addingTimeInterval(59)) == false)
        #expect(try acquire("a", at: now.addingTimeInterval(30)), "the holder extends its lease")
        #expect(try acquire("b", at: now.addingTimeInterval(89)) == false, "extended to 90 s")
        #expect(try acquire("b", at: now.addingTimeInterval(90)), "taken over once expired")
        try write(fixture) { try $0.leases.releaseLease("retention", holder: "a") }
        #expect(try acquire("a", at: now.addingTimeInterval(91)) == false, "a former holder cannot release another's lease")
        try write(fixture) { try $0.leases.releaseLease("retention", holder: "b") }
        #expect(try acquire("a", at: now.addingTimeInterval(91)))
        #expect(try write(fixture) { try $0.leases.acquireLease("other", holder: "b", now: now, duration: .seconds(60)) }, "leases are independent")
    }

    @Test func concurrentProcessesOnPostgreSQLGetTheLeaseOnce() throws {
        let fixture = try StoreFixture(.postgres)
        let stores = try (0..<4).map { _ in try fixture.reopen() }
        defer { stores.forEach { $0.close() } }
        let now = Date()
        for round in 0..<5 {
            let winners = Mutex<[Int]>([])
            try onThreads(stores.count) { index in
                let won = try stores[index].withSession(.write) {
                    try $0.leases.acquireLease("round\(round)", holder: "process\(index)", now: now, duration: .seconds(60))
                }
                if won { winners.withLock { $0.append(index) } }
            }
            #expect(winners.withLock { $0.count } == 1, "round \(round): \(winners.withLock { $0 })")
        }
    }

    @Test(arguments: Backend.allCases)
    func statisticsCountWhatOperatorsWatch(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let empty = try fixture.store.withSession(.read) { try $0.statistics() }
        #expect(empty == StoreStatistics(
            registrations: 0, devices: 0, oldestPendingPush: nil, jobs: [.pending: 0, .running: 0, .done: 0, .failed: 0],
            unfinishedJobPasses: 0, unfinishedJobPassesDone: 0
        ))
        let event = try fixture.makeEvent()
        for index in 0..<3 { try fixture.makePass(serial: "S\(index)", eventID: event.id) }
        _ = try fixture.register(device: "d1", token: .fixture("t1"), serial: "S0")
        _ = try fixture.register(device: "d1", token: .fixture("t1"), serial: "S1")
        _ = try fixture.register(device: "d2", token: .fixture("t2"), serial: "S1")
        let early = Self.cutoff
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "S0", change: PassChange(touch: true), now: early)
        }
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "S1", change: PassChange(touch: true), now: early.addingTimeInterval(5))
        }
        let job = try #require(try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(name: "Renamed"), now: early) }.job)
        _ = try fixture.store.withSession(.write) { try $0.jobs.runRepushBatch(jobID: job.id, batchSize: 2, now: early) }
        let statistics = try fixture.store.withSession(.read) { try $0.statistics() }
        #expect(statistics.registrations == 3)
        #expect(statistics.devices == 2)
        #expect(statistics.oldestPendingPush == early, "t1 was enqueued first and coalesced since")
        #expect(statistics.jobs == [.pending: 0, .running: 1, .done: 0, .failed: 0])
        #expect(statistics.unfinishedJobPasses == 3)
        #expect(statistics.unfinishedJobPassesDone == 2)
    }
}

import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

/// Reach bookkeeping (told, served, up to date) and the tallies kept by triggers, on both backends.
@Suite("Reach and tallies", .offCooperativePool)
struct ReachTests {
    static let passType = StoreFixture.passType

    /// The counts of an event recomputed the slow way, from the passes themselves (never from the
    /// copies on registrations), grouped by the job that last bumped each pass ("" for none).
    static func recount(_ store: any Store, event: String) throws -> EventTally {
        var tally = EventTally()
        func add(_ job: String, _ change: Tally) {
            tally.byJob[job] = (tally.byJob[job] ?? Tally()) + change
            tally.total = tally.total + change
        }
        for row in try store.execute("""
            SELECT count(*) AS tickets, COALESCE(sum(CASE WHEN status = 'voided' THEN 1 ELSE 0 END), 0) AS voided
            FROM passes WHERE event_id = \(event)
            """) {
            add("", Tally(tickets: try row.int64("tickets"), cancelled: try row.int64("voided")))
        }
        for row in try store.execute("""
            SELECT count(DISTINCT r.device_library_identifier) AS phones FROM registrations r
            JOIN passes p ON p.pass_type_identifier = r.pass_type_identifier AND p.serial_number = r.serial_number
            WHERE p.event_id = \(event)
            """) {
            add("", Tally(registeredDevices: try row.int64("phones")))
        }
        for row in try store.execute("""
            SELECT COALESCE(p.job_id, '') AS job, count(*) AS devices,
                sum(CASE WHEN r.told_revision >= p.revision AND p.served_revision >= p.revision THEN 1 ELSE 0 END) AS current
            FROM registrations r JOIN passes p ON p.pass_type_identifier = r.pass_type_identifier AND p.serial_number = r.serial_number
            WHERE p.event_id = \(event) GROUP BY COALESCE(p.job_id, '')
            """) {
            add(try row.string("job"), Tally(devices: try row.int64("devices"), devicesUpToDate: try row.int64("current")))
        }
        for row in try store.execute("""
            SELECT COALESCE(job_id, '') AS job, count(*) AS pending FROM push_outbox
            WHERE event_id = \(event) AND state = 'pending' GROUP BY COALESCE(job_id, '')
            """) {
            add(try row.string("job"), Tally(pushesPending: try row.int64("pending")))
        }
        for row in try store.execute("""
            SELECT count(*) AS n FROM checkins c JOIN passes p ON p.id = c.pass_id WHERE p.event_id = \(event) AND p.status = 'active'
            """) {
            add("", Tally(checkedIn: try row.int64("n")))
        }
        for row in try store.execute("""
            SELECT COALESCE(sum(CASE WHEN state = 'queued' THEN 1 ELSE 0 END), 0) AS queued,
                COALESCE(sum(CASE WHEN state = 'sent' THEN 1 ELSE 0 END), 0) AS sent,
                COALESCE(sum(CASE WHEN state = 'failed' THEN 1 ELSE 0 END), 0) AS failed
            FROM ticket_emails WHERE event_id = \(event)
            """) {
            add("", Tally(emailsQueued: try row.int64("queued"), emailsSent: try row.int64("sent"), emailsFailed: try row.int64("failed")))
        }
        tally.byJob = tally.byJob.filter { !$0.value.isZero }
        return tally
    }

    static func tally(_ store: any Store, event: String) throws -> EventTally {
        var tally = try store.withSession(.read) { try $0.reach.eventTally(eventID: event) }
        tally.byJob = tally.byJob.filter { !$0.value.isZero }
        return tally
    }

    static func expectTallyMatches(
        _ fixture: StoreFixture, event: String, _ step: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let kept = try tally(fixture.store, event: event)
        let truth = try recount(fixture.store, event: event)
        #expect(kept == truth, "after \(step)", sourceLocation: sourceLocation)
    }

    @Test("the changed-serials list tells, a fetch serves, and a registration is up to date only with both", arguments: Backend.allCases)
    func toldAndServed(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let event = try fixture.makeEvent()
        let pass = try fixture.makePass(serial: "R1", eventID: event.id)
        _ = try fixture.register(device: "phone-a", token: .fixture("ta"), serial: "R1")
        _ = try fixture.register(device: "phone-b", token: .fixture("tb"), serial: "R1")
        func devices() throws -> [DeviceLibraryIdentifier: RegisteredDevice] {
            let list = try fixture.store.withSession(.read) { try $0.reach.registeredDevices(passTypeIdentifier: Self.passType, serialNumber: "R1") }
            return Dictionary(uniqueKeysWithValues: list.map { ($0.deviceLibraryIdentifier, $0) })
        }
        #expect(try devices().values.allSatisfy { $0.toldRevision == nil && !$0.upToDate })

        let listed = try fixture.store.withSession(.read) { try $0.registrations.serials(deviceLibraryIdentifier: "phone-a", passTypeIdentifier: Self.passType, updatedAfter: nil) }
        #expect(listed.needsTelling)
        let tag = try #require(listed.lastRevision)
        let told = try fixture.store.withSession(.write) {
            try $0.reach.recordTold(deviceLibraryIdentifier: "phone-a", passTypeIdentifier: Self.passType, listedAfter: nil, tag: tag, now: now)
        }
        #expect(told == 1)
        // Told, not yet served: not up to date.
        #expect(try devices()["phone-a"]?.toldRevision == tag)
        #expect(try devices()["phone-a"]?.upToDate == false)
        // Asking again changes nothing and writes nothing.
        #expect(try fixture.store.withSession(.read) { try $0.registrations.serials(deviceLibraryIdentifier: "phone-a", passTypeIdentifier: Self.passType, updatedAfter: nil) }.needsTelling == false)
        #expect(try fixture.store.withSession(.write) {
            try $0.reach.recordTold(deviceLibraryIdentifier: "phone-a", passTypeIdentifier: Self.passType, listedAfter: nil, tag: tag, now: now)
        } == 0)

        #expect(try fixture.store.withSession(.write) {
            try $0.reach.recordServed(passTypeIdentifier: Self.passType, serialNumber: "R1", revision: pass.revision, now: now)
        })
        #expect(try fixture.store.withSession(.write) {
            try $0.reach.recordServed(passTypeIdentifier: Self.passType, serialNumber: "R1", revision: pass.revision, now: now)
        } == false, "a second fetch of the same revision writes nothing")
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: Self.passType, serialNumber: "R1") }?.servedRevision == pass.revision)
        // A fetch by any device counts for the pass: phone-a (told) is up to date, phone-b (never told) is not.
        #expect(try devices()["phone-a"]?.upToDate == true)
        #expect(try devices()["phone-b"]?.upToDate == false)
        try Self.expectTallyMatches(fixture, event: event.id, "told and served")
        #expect(try Self.tally(fixture.store, event: event.id).total.devicesUpToDate == 1)

        // A change makes nobody up to date until told and served again.
        let changed = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: Self.passType, serialNumber: "R1", change: PassChange(seat: "B2"), now: now)
        }
        #expect(try devices()["phone-a"]?.upToDate == false)
        try Self.expectTallyMatches(fixture, event: event.id, "a change")
        // An old tag lists the pass again; a tag the pass is at does not.
        #expect(try fixture.store.withSession(.read) { try $0.registrations.serials(deviceLibraryIdentifier: "phone-a", passTypeIdentifier: Self.passType, updatedAfter: tag) }.serialNumbers == ["R1"])
        #expect(try fixture.store.withSession(.read) {
            try $0.registrations.serials(
                deviceLibraryIdentifier: "phone-a", passTypeIdentifier: Self.passType, updatedAfter: changed.pass.revision
            )
        }.serialNumbers.isEmpty)
    }

    @Test("tallies equal a recount through changes, jobs, pushes, deletions and folds", arguments: Backend.allCases)
    func talliesFollowEveryChange(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let event = try fixture.makeEvent()
        let other = try fixture.makeEvent()
        for index in 0..<12 {
            let pass = try fixture.makePass(serial: "T\(index)", eventID: index < 10 ? event.id : other.id)
            _ = try fixture.register(device: "dev\(index)", token: .fixture("tok\(index % 6)"), serial: pass.serialNumber)
            if index < 3 { _ = try fixture.register(device: "extra\(index)", token: .fixture("xtok\(index)"), serial: pass.serialNumber) }
        }
        try Self.expectTallyMatches(fixture, event: event.id, "issuing and registering")
        #expect(try Self.tally(fixture.store, event: event.id).total.tickets == 10)
        #expect(try Self.tally(fixture.store, event: event.id).total.devices == 13)
        #expect(try Self.tally(fixture.store, event: event.id).total.registeredDevices == 13)
        // A phone holding two tickets of the event is one registered device and two registrations.
        _ = try fixture.register(device: "dev0", token: .fixture("tok0"), serial: "T4")
        try Self.expectTallyMatches(fixture, event: event.id, "a second ticket on one phone")
        #expect(try Self.tally(fixture.store, event: event.id).total.registeredDevices == 13)
        #expect(try Self.tally(fixture.store, event: event.id).total.devices == 14)

        // Phones list and fetch: some up to date.
        for index in 0..<6 {
            let device: DeviceLibraryIdentifier = "dev\(index)"
            let listed = try fixture.store.withSession(.read) { try $0.registrations.serials(deviceLibraryIdentifier: device, passTypeIdentifier: Self.passType, updatedAfter: nil) }
            _ = try fixture.store.withSession(.write) {
                try $0.reach.recordTold(deviceLibraryIdentifier: device, passTypeIdentifier: Self.passType, listedAfter: nil,
                                  tag: try #require(listed.lastRevision), now: now)
            }
            if index % 2 == 0 {
                let pass = try #require(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: Self.passType, serialNumber: "T\(index)") })
                _ = try fixture.store.withSession(.write) {
                    try $0.reach.recordServed(passTypeIdentifier: Self.passType, serialNumber: pass.serialNumber, revision: pass.revision, now: now)
                }
            }
        }
        try Self.expectTallyMatches(fixture, event: event.id, "lists and fetches")
        // dev0, dev2 and dev4 hold served passes; dev0 also holds T4, which dev4's fetch served.
        #expect(try Self.tally(fixture.store, event: event.id).total.devicesUpToDate == 4)

        // Single-ticket changes, a cancel, and a fold in between.
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: Self.passType, serialNumber: "T0", change: PassChange(status: .cancelled), now: now)
        }
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: Self.passType, serialNumber: "T1", change: PassChange(seat: "C3"), now: now)
        }
        try Self.expectTallyMatches(fixture, event: event.id, "single-ticket changes")
        #expect(try fixture.store.withSession(.write) { try $0.reach.foldTallyChanges() } > 0)
        try Self.expectTallyMatches(fixture, event: event.id, "a fold")
        #expect(try Self.tally(fixture.store, event: event.id).total.cancelled == 1)

        // A re-push job in batches: registrations and pushes move to the job as its batches commit.
        let job = try #require(try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(venue: "Arena"), now: now) }.job)
        _ = try fixture.store.withSession(.write) { try $0.jobs.runRepushBatch(jobID: job.id, batchSize: 4, now: now) }
        try Self.expectTallyMatches(fixture, event: event.id, "the first batch")
        var batches = 0
        while try fixture.store.withSession(.write, { try $0.jobs.runRepushBatch(jobID: job.id, batchSize: 4, now: now) }).job.state != .done {
            batches += 1
            try #require(batches < 100, "the job is not done after \(batches) more batches")
        }
        try Self.expectTallyMatches(fixture, event: event.id, "the whole job")
        let afterJob = try Self.tally(fixture.store, event: event.id)
        #expect(afterJob.byJob[job.id]?.devices == 14)
        #expect(afterJob.byJob[job.id]?.devicesUpToDate == 0, "a bump leaves nobody up to date")
        #expect(afterJob.byJob[job.id]?.pushesPending ?? 0 > 0)

        // The dispatcher: claims, delivers (row deleted), fails one for good.
        let claimed = try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 100, now: now, lease: .seconds(60)) }
        #expect(claimed.contains { $0.jobID == job.id && $0.eventID == event.id })
        try Self.expectTallyMatches(fixture, event: event.id, "claims")
        let settlement = OutboxSettlement(entries: claimed.enumerated().map { index, row in
            OutboxSettlement.Entry(id: row.id, generation: row.generation, change: index == 0 ? .failed(status: 400, reason: "BadPriority") : .completed)
        })
        let settled = try fixture.store.withSession(.write) { try $0.outbox.settleOutbox(settlement, now: now) }
        #expect(settled.deletedIDs == Set(claimed.dropFirst().map(\.id)))
        // What the dispatcher appends for deleted rows (the database tallies the failed one itself).
        let removed = claimed.dropFirst().filter { $0.eventID == event.id }
        try fixture.store.withSession(.write) { session in
            try session.reach.appendTallyChanges([TallyChange(eventID: event.id, jobID: job.id, change: Tally(pushesPending: -Int64(removed.count)))])
        }
        try Self.expectTallyMatches(fixture, event: event.id, "pushes answered")

        // Deletions: unregistering, pruning a token, and a registration added after the job.
        _ = try fixture.store.withSession(.write) {
            try $0.registrations.deleteRegistration(deviceLibraryIdentifier: "extra0", passTypeIdentifier: Self.passType, serialNumber: "T0")
        }
        _ = try fixture.store.withSession(.write) { try $0.registrations.pruneRegistrations(pushToken: .fixture("tok1"), passTypeIdentifier: Self.passType, unlessUpdatedAfter: nil) }
        _ = try fixture.register(device: "late", token: .fixture("late-token"), serial: "T5")
        try Self.expectTallyMatches(fixture, event: event.id, "deletions and a late registration")
        try Self.expectTallyMatches(fixture, event: other.id, "the other event, never touched by the job")
        #expect(try fixture.store.withSession(.write) { try $0.reach.foldTallyChanges(limit: 3) } == 3)
        try Self.expectTallyMatches(fixture, event: event.id, "a partial fold")
        var folds = 0
        while try fixture.store.withSession(.write, { try $0.reach.foldTallyChanges(limit: 5) }) > 0 {
            folds += 1
            try #require(folds < 100, "changes still left to fold after \(folds) folds")
        }
        try Self.expectTallyMatches(fixture, event: event.id, "folding everything")
        #expect(try fixture.store.execute("SELECT count(*) AS n FROM event_tally_changes").first?.int("n") == 0)
    }

    @Test("a job's share: its own devices once done, the event's while running", arguments: Backend.allCases)
    func jobShare(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let event = try fixture.makeEvent()
        for index in 0..<6 {
            try fixture.makePass(serial: "S\(index)", eventID: event.id)
            _ = try fixture.register(device: "d\(index)", token: .fixture("t\(index)"), serial: "S\(index)")
        }
        let job = try #require(try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(name: "Renamed"), now: now) }.job)
        var running = try #require(try fixture.store.withSession(.write) { try $0.jobs.claimJob(now: now, lease: .seconds(60)) })
        #expect(try Self.tally(fixture.store, event: event.id).share(of: running).devices == 6)
        #expect(try Self.tally(fixture.store, event: event.id).share(of: running).devicesUpToDate == 0)
        running = try fixture.store.withSession(.write) { try $0.jobs.runRepushBatch(jobID: job.id, batchSize: 4, now: now) }.job
        #expect(running.state == .running)
        #expect(try Self.tally(fixture.store, event: event.id).share(of: running).devices == 6, "passes still to bump count")
        let done = try fixture.store.withSession(.write) { try $0.jobs.runRepushBatch(jobID: job.id, batchSize: 4, now: now) }.job
        #expect(done.state == .done)
        let share = try Self.tally(fixture.store, event: event.id).share(of: done)
        #expect(share.devices == 6)
        #expect(share.pushesPending == 6)
        #expect(share.tickets == 0)
    }
}

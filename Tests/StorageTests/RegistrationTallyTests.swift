import Foundation
import PassIdentifiers
import PassServerTesting
@testable import Storage
import Testing

/// The device API's registration (`upsertRegistration(keepingAtMost:)`) writes the pass copies, the
/// first Wallet add and the reach tallies itself on PostgreSQL, where every other writer of
/// registrations leaves them to triggers: both must keep the same books, on both backends.
@Suite("Registration tallies", .offCooperativePool, .timeLimit(.minutes(3)))
struct RegistrationTallyTests {
    static let passType = StoreFixture.passType
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// One registration step: `capped` through the device API's path (keeping at most `limit`),
    /// otherwise through the uncapped upsert, with the least recently updated registrations beyond
    /// `limit` unregistered one by one, as another writer would.
    static func register(
        _ fixture: StoreFixture, device: DeviceLibraryIdentifier, serial: SerialNumber, at seconds: Double, limit: Int, capped: Bool
    ) throws -> RegistrationResult {
        let now = start.addingTimeInterval(seconds)
        if capped {
            return try fixture.store.withSession(.write) {
                try $0.registrations.upsertRegistration(
                    deviceLibraryIdentifier: device, pushToken: .fixture("token-\(device)"), passTypeIdentifier: passType, serialNumber: serial,
                    now: now, keepingAtMost: limit
                )
            }
        }
        let result = try fixture.store.withSession(.write) {
            try $0.registrations.upsertRegistration(
                deviceLibraryIdentifier: device, pushToken: .fixture("token-\(device)"), passTypeIdentifier: passType, serialNumber: serial, now: now
            )
        }
        let beyond = try fixture.store.execute("""
            SELECT device_library_identifier FROM registrations
            WHERE pass_type_identifier = \(passType) AND serial_number = \(serial) AND device_library_identifier <> \(device)
            ORDER BY updated_at DESC, created_at DESC, device_library_identifier DESC
            """).dropFirst(limit - 1)
        for row in beyond {
            let evicted = DeviceLibraryIdentifier(trusted: try row.string("device_library_identifier"))
            _ = try fixture.store.withSession(.write) {
                try $0.registrations.deleteRegistration(deviceLibraryIdentifier: evicted, passTypeIdentifier: passType, serialNumber: serial, now: now)
            }
        }
        return result
    }

    /// The copies each registration carries of its pass, and the pass's columns they copy.
    static func copiesMatch(_ fixture: StoreFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let stale = try fixture.store.execute("""
            SELECT r.device_library_identifier, r.serial_number FROM registrations r
            JOIN passes p ON p.pass_type_identifier = r.pass_type_identifier AND p.serial_number = r.serial_number
            WHERE r.pass_id IS DISTINCT FROM p.id OR r.event_id IS DISTINCT FROM p.event_id OR r.job_id IS DISTINCT FROM p.job_id
               OR r.pass_revision IS DISTINCT FROM p.revision OR r.served_revision IS DISTINCT FROM p.served_revision
            """).map { "\(try $0.string("device_library_identifier"))/\(try $0.string("serial_number"))" }
        #expect(stale.isEmpty, "registrations whose copies differ from their pass: \(stale)", sourceLocation: sourceLocation)
    }

    /// `event_devices` (one row per phone and event, with its registrations there) against a recount.
    static func eventDevicesMatch(_ fixture: StoreFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        func rows(_ sql: SQLQuery) throws -> [String] {
            try fixture.store.execute(sql).map { "\(try $0.string("event_id"))/\(try $0.string("device_library_identifier"))=\(try $0.int64("n"))" }.sorted()
        }
        let kept = try rows("SELECT event_id, device_library_identifier, registrations AS n FROM event_devices")
        let truth = try rows("""
            SELECT event_id, device_library_identifier, count(*) AS n FROM registrations WHERE event_id IS NOT NULL
            GROUP BY event_id, device_library_identifier
            """)
        #expect(kept == truth, sourceLocation: sourceLocation)
    }

    static func walletAdded(_ fixture: StoreFixture, serial: SerialNumber) throws -> Int64? {
        try fixture.store.execute("""
            SELECT wallet_added_at FROM passes WHERE pass_type_identifier = \(passType) AND serial_number = \(serial)
            """).first?.optionalInt64("wallet_added_at")
    }

    /// The same story told through the device API's path and through the other writers: two
    /// events, phones holding tickets of both, up-to-date registrations evicted, a job's share,
    /// a phone evicted from one ticket while it keeps another of the event, one forgotten.
    static func story(_ backend: Backend, capped: Bool) throws -> (fixture: StoreFixture, events: [String], tallies: [EventTally]) {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(), other = try fixture.makeEvent()
        for serial in ["A", "B", "C"] { try fixture.makePass(serial: SerialNumber(trusted: serial), eventID: event.id) }
        try fixture.makePass(serial: "X", eventID: other.id)
        try fixture.makePass(serial: "N")
        func register(_ device: DeviceLibraryIdentifier, _ serial: SerialNumber, at seconds: Double) throws -> RegistrationResult {
            let result = try Self.register(fixture, device: device, serial: serial, at: seconds, limit: 2, capped: capped)
            for id in [event.id, other.id] { try ReachTests.expectTallyMatches(fixture, event: id, "\(device) registering \(serial)") }
            try copiesMatch(fixture)
            try eventDevicesMatch(fixture)
            return result
        }
        #expect(try register("p1", "A", at: 1) == .created)
        #expect(try walletAdded(fixture, serial: "A") == start.addingTimeInterval(1).storageMillis)
        #expect(try register("p2", "A", at: 2) == .created)
        #expect(try register("p1", "B", at: 3) == .created)
        #expect(try register("p1", "X", at: 4) == .created)
        #expect(try register("p1", "N", at: 5) == .created, "a pass of no event")
        // p1's registration of A is told and served: up to date, then evicted.
        let tag = try #require(try fixture.store.withSession(.read) {
            try $0.registrations.serials(deviceLibraryIdentifier: "p1", passTypeIdentifier: passType, updatedAfter: nil)
        }.lastRevision)
        _ = try fixture.store.withSession(.write) {
            try $0.reach.recordTold(deviceLibraryIdentifier: "p1", passTypeIdentifier: passType, listedAfter: nil, tag: tag, now: start)
        }
        let passA = try #require(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: passType, serialNumber: "A") })
        _ = try fixture.store.withSession(.write) {
            try $0.reach.recordServed(passTypeIdentifier: passType, serialNumber: "A", revision: passA.revision, now: start)
        }
        try ReachTests.expectTallyMatches(fixture, event: event.id, "p1 up to date")
        // p3 takes the place of p1 on A; p1 keeps B (the same event) and X.
        #expect(try register("p3", "A", at: 10) == .created)
        #expect(try register("p2", "A", at: 11) == .updated)
        // A job bumps the event's passes: new registrations count in its share.
        let job = try #require(try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(venue: "Arena"), now: start) }.job)
        var batches = 0
        while try fixture.store.withSession(.write, { try $0.jobs.runRepushBatch(jobID: job.id, batchSize: 10, now: start) }).job.state != .done {
            batches += 1
            try #require(batches < 100, "the job is not done after \(batches) batches")
        }
        #expect(try register("p4", "A", at: 20) == .created, "evicts p3, registered before the job")
        #expect(try register("p5", "C", at: 21) == .created)
        // p2 leaves A for p6: p2 holds nothing else, and is forgotten.
        #expect(try register("p6", "A", at: 22) == .created)
        #expect(try fixture.store.execute("SELECT 1 AS one FROM devices WHERE device_library_identifier = 'p2'").isEmpty)
        #expect(try walletAdded(fixture, serial: "A") == start.addingTimeInterval(1).storageMillis, "the first add stays")
        #expect(try walletAdded(fixture, serial: "C") == start.addingTimeInterval(21).storageMillis)
        let tallies = try [event.id, other.id].map { try ReachTests.tally(fixture.store, event: $0) }
        #expect(tallies[0].byJob[job.id]?.devices == 4, "A's two, B's and C's, all bumped by the job")
        return (fixture, [event.id, other.id], tallies)
    }

    @Test("the device API's registration and the other writers keep the same tallies, copies and first adds", arguments: Backend.allCases)
    func sameBooksEitherWay(_ backend: Backend) throws {
        let capped = try Self.story(backend, capped: true)
        let other = try Self.story(backend, capped: false)
        #expect(capped.tallies.map(\.total) == other.tallies.map(\.total))
        // Job IDs differ between the two databases; the shares must not.
        #expect(capped.tallies.map { $0.byJob.values.map(\.devices).sorted() } == other.tallies.map { $0.byJob.values.map(\.devices).sorted() })
        for story in [capped, other] {
            #expect(try story.fixture.store.withSession(.write) { try $0.reach.foldTallyChanges() } > 0)
            for id in story.events { try ReachTests.expectTallyMatches(story.fixture, event: id, "folding") }
        }
    }

    @Test("a new phone taking an evicted phone's place on a ticket of the same event writes no tally change")
    func evictionThatCancelsOutWritesNothing() throws {
        let fixture = try StoreFixture(.postgres)
        let event = try fixture.makeEvent()
        try fixture.makePass(serial: "A", eventID: event.id)
        func changes() throws -> Int { try fixture.store.execute("SELECT count(*) AS n FROM event_tally_changes").first?.int("n") ?? -1 }
        _ = try Self.register(fixture, device: "p1", serial: "A", at: 1, limit: 1, capped: true)
        let before = try changes()
        // The uncapped path with its unregistration does write (proof that a change could be seen).
        _ = try Self.register(fixture, device: "p2", serial: "A", at: 2, limit: 1, capped: false)
        let afterOther = try changes()
        #expect(afterOther > before)
        _ = try Self.register(fixture, device: "p3", serial: "A", at: 3, limit: 1, capped: true)
        #expect(try changes() == afterOther, "one registration of the event out, one in: the changes cancel out")
        #expect(try fixture.store.execute("SELECT device_library_identifier FROM registrations").map { try $0.string("device_library_identifier") } == ["p3"])
        try ReachTests.expectTallyMatches(fixture, event: event.id, "the swap")
        try Self.eventDevicesMatch(fixture)
    }

    @Test("concurrent registrations of one event's tickets by phones evicting each other keep the books", arguments: Backend.allCases)
    func concurrentRegistrationsKeepTheBooks(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let serials: [SerialNumber] = ["A", "B", "C"]
        for serial in serials { try fixture.makePass(serial: serial, eventID: event.id) }
        let deadline = Date().addingTimeInterval(90)
        try onThreads(6) { thread in
            for step in 0..<15 {
                let device = DeviceLibraryIdentifier(trusted: "c\((thread * 7 + step * 3) % 6)")
                let serial = serials[(thread + step) % serials.count]
                // Two registrations that lock rows in opposite orders may deadlock; PostgreSQL
                // aborts one (`.timeout`, a 503 the phone retries), as a phone would, so do we.
                while true {
                    do {
                        _ = try Self.register(fixture, device: device, serial: serial, at: Double(step), limit: 2, capped: true)
                        break
                    } catch let error as StorageError where error.code == .timeout && Date() < deadline {
                        continue
                    }
                }
            }
        }
        try ReachTests.expectTallyMatches(fixture, event: event.id, "the concurrent registrations")
        try Self.eventDevicesMatch(fixture)
        try Self.copiesMatch(fixture)
        #expect(try fixture.store.execute("SELECT count(*) AS n FROM registrations").first?.int("n") == 6, "three tickets, two phones each")
    }
}

import Foundation
import PassIdentifiers
import PassServerTesting
import Synchronization
@testable import Storage
import Testing

/// `recordReach(_:)`: many phones' marks in one transaction write what the single-mark calls
/// write, on both backends; on PostgreSQL in one round trip.
@Suite("Reach marks in batches", .offCooperativePool)
struct ReachBatchTests {
    static let passType = StoreFixture.passType

    /// An event of `count` passes, each on two phones (`<prefix>a<i>`, `<prefix>b<i>`), every pass
    /// changed once after registering, so each is at revision 2 of the counter's view.
    static func event(_ fixture: StoreFixture, prefix: String, count: Int) throws -> (event: Event, passes: [StoredPass]) {
        let event = try fixture.makeEvent()
        var passes: [StoredPass] = []
        for index in 0..<count {
            let serial = SerialNumber(stringLiteral: "\(prefix)\(index)")
            _ = try fixture.makePass(serial: serial, eventID: event.id)
            _ = try fixture.register(device: DeviceLibraryIdentifier(stringLiteral: "\(prefix)a\(index)"), token: .fixture("\(prefix)a\(index)"), serial: serial)
            _ = try fixture.register(device: DeviceLibraryIdentifier(stringLiteral: "\(prefix)b\(index)"), token: .fixture("\(prefix)b\(index)"), serial: serial)
            passes.append(try fixture.store.withSession(.write) {
                try $0.passes.updatePass(passTypeIdentifier: Self.passType, serialNumber: serial, change: PassChange(seat: "S\(index)"), now: Date())
            }.pass)
        }
        return (event, passes)
    }

    /// What phones did to one event's passes: for pass i, phone a lists (told the pass's revision,
    /// and for even i first an older tag, after the newer one), the pass is served for i % 3 != 0
    /// (for i % 3 == 1 also an older revision, after the newer one); phone b is told nothing.
    static func marks(_ passes: [StoredPass], prefix: String, now: Date) -> ReachMarks {
        var marks = ReachMarks()
        for (index, pass) in passes.enumerated() {
            let device = DeviceLibraryIdentifier(stringLiteral: "\(prefix)a\(index)")
            marks.told.append(.init(deviceLibraryIdentifier: device, passTypeIdentifier: Self.passType, listedAfter: nil, tag: pass.revision, at: now))
            if index % 2 == 0 {
                marks.told.append(.init(deviceLibraryIdentifier: device, passTypeIdentifier: Self.passType, listedAfter: nil, tag: pass.revision - 1, at: now))
            }
            if index % 3 != 0 {
                marks.served.append(.init(passTypeIdentifier: Self.passType, serialNumber: pass.serialNumber, revision: pass.revision, at: now))
            }
            if index % 3 == 1 {
                marks.served.append(.init(passTypeIdentifier: Self.passType, serialNumber: pass.serialNumber, revision: pass.revision - 1, at: now))
            }
        }
        return marks
    }

    /// Each pass's registrations as the admin API shows them, keyed by pass index then phone letter.
    static func reach(_ fixture: StoreFixture, _ passes: [StoredPass], prefix: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: String] {
        var seen: [String: String] = [:]
        for (index, pass) in passes.enumerated() {
            let stored = try #require(
                try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: Self.passType, serialNumber: pass.serialNumber) },
                sourceLocation: sourceLocation
            )
            seen["\(index) served"] = "\(stored.servedRevision.map { $0 - pass.revision } ?? -99)"
            let devices = try fixture.store.withSession(.read) { try $0.reach.registeredDevices(passTypeIdentifier: Self.passType, serialNumber: pass.serialNumber) }
            for device in devices {
                let phone = device.deviceLibraryIdentifier.rawValue.dropFirst(prefix.count).prefix(1)
                seen["\(index)\(phone)"] = "told \(device.toldRevision.map { $0 - pass.revision } ?? -99) up to date \(device.upToDate)"
            }
        }
        return seen
    }

    @Test("a batch writes what the single-mark calls write, however its marks repeat or arrive out of order", arguments: Backend.allCases)
    func batchMatchesSingles(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let single = try Self.event(fixture, prefix: "s", count: 12)
        let batched = try Self.event(fixture, prefix: "m", count: 12)
        for mark in Self.marks(single.passes, prefix: "s", now: now).told {
            _ = try fixture.store.withSession(.write) {
                try $0.reach.recordTold(deviceLibraryIdentifier: mark.deviceLibraryIdentifier, passTypeIdentifier: mark.passTypeIdentifier,
                                  listedAfter: mark.listedAfter, tag: mark.tag, now: mark.at)
            }
        }
        for mark in Self.marks(single.passes, prefix: "s", now: now).served {
            _ = try fixture.store.withSession(.write) {
                try $0.reach.recordServed(passTypeIdentifier: mark.passTypeIdentifier, serialNumber: mark.serialNumber, revision: mark.revision, now: mark.at)
            }
        }
        try fixture.store.withSession(.write) { try $0.reach.recordReach(Self.marks(batched.passes, prefix: "m", now: now)) }

        let expected = try Self.reach(fixture, single.passes, prefix: "s")
        // The singles really moved something: 8 passes served, 12 phones told, 8 up to date.
        #expect(expected.values.filter { $0 == "0" }.count == 8)
        #expect(expected.values.filter { $0.hasPrefix("told 0") }.count == 12)
        #expect(expected.values.filter { $0 == "told 0 up to date true" }.count == 8)
        #expect(try Self.reach(fixture, batched.passes, prefix: "m") == expected)
        #expect(try ReachTests.tally(fixture.store, event: batched.event.id).total.devicesUpToDate == 8)
        try ReachTests.expectTallyMatches(fixture, event: batched.event.id, "a batch of marks")

        // The same batch again writes nothing new.
        try fixture.store.withSession(.write) { try $0.reach.recordReach(Self.marks(batched.passes, prefix: "m", now: now.addingTimeInterval(60))) }
        #expect(try Self.reach(fixture, batched.passes, prefix: "m") == expected)
        try ReachTests.expectTallyMatches(fixture, event: batched.event.id, "the batch again")
    }

    @Test("PostgreSQL: 300 phones' marks are one round trip")
    func oneRoundTrip() throws {
        let fixture = try StoreFixture(.postgres)
        let warm = try Self.event(fixture, prefix: "w", count: 2)
        let storm = try Self.event(fixture, prefix: "p", count: 150)
        let trips = try fixture.store.withSession(.write) { session in
            // The warm-up batch prepares the statements.
            try session.reach.recordReach(Self.marks(warm.passes, prefix: "w", now: Date()))
            let before = try DeferredStatementTests.roundTrips(session)
            try session.reach.recordReach(Self.marks(storm.passes, prefix: "p", now: Date()))
            return try DeferredStatementTests.roundTrips(session) - before
        }
        #expect(trips == 1)
        #expect(try ReachTests.tally(fixture.store, event: storm.event.id).total.devicesUpToDate == 100)
    }

    /// A phone listed and fetched its pass, and the pass changes (a check-in at the door) before the
    /// ledger has written those marks: the pass change holds the pass row and then writes its
    /// registrations, so a batch holding one of those registrations while it waits for the pass
    /// would be a deadlock, one of the two aborted (a 503 at the door).
    @Test("PostgreSQL: a batch waiting for a pass a change holds holds none of its registrations: neither is aborted", .timeLimit(.minutes(1)))
    func batchAndPassChangeLockInOneOrder() throws {
        let fixture = try StoreFixture(.postgres)
        let pass = try #require(try Self.event(fixture, prefix: "d", count: 1).passes.first)
        let now = Date()
        var marks = ReachMarks()
        marks.told.append(.init(deviceLibraryIdentifier: "da0", passTypeIdentifier: Self.passType, listedAfter: nil, tag: pass.revision, at: now))
        marks.served.append(.init(passTypeIdentifier: Self.passType, serialNumber: pass.serialNumber, revision: pass.revision, at: now))
        let batch = marks
        let thisPass: SQLQuery = "pass_type_identifier = \(Self.passType) AND serial_number = \(pass.serialNumber)"

        let batchFailure = Mutex<String?>(nil)
        let batchDone = DispatchSemaphore(value: 0)
        try fixture.store.transaction { change in
            // The change's first step: the pass row, locked.
            _ = try change.execute("SELECT id FROM passes WHERE \(thisPass) FOR UPDATE")
            Thread {
                do { try fixture.store.withSession(.write) { try $0.reach.recordReach(batch) } } catch { batchFailure.withLock { $0 = "\(error)" } }
                batchDone.signal()
            }.start()
            // The batch is under way: it waits for a lock (the pass).
            let deadline = Date().addingTimeInterval(20)
            var waiting = 0
            while waiting == 0, Date() < deadline {
                // Statistics views keep one snapshot for a transaction unless it is cleared.
                _ = try change.execute("SELECT pg_stat_clear_snapshot()")
                waiting = try change.first(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )?.int("n") ?? 0
                if waiting == 0 { usleep(20_000) }
            }
            #expect(waiting == 1, "the batch never waited for the pass")
            // The change's next step: the pass's registrations (a deadlock here if the batch held them).
            _ = try change.execute("UPDATE registrations SET pass_revision = pass_revision WHERE \(thisPass)")
        }
        #expect(batchDone.wait(timeout: .now() + 30) == .success, "the batch finished")
        #expect(batchFailure.withLock { $0 } == nil, "the batch was not aborted")
        // And it wrote its marks once the change was done.
        let devices = try fixture.store.withSession(.read) { try $0.reach.registeredDevices(passTypeIdentifier: Self.passType, serialNumber: pass.serialNumber) }
        #expect(devices.first { $0.deviceLibraryIdentifier == "da0" }?.toldRevision == pass.revision)
        let stored = try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: Self.passType, serialNumber: pass.serialNumber) }
        #expect(stored?.servedRevision == pass.revision)
    }
}

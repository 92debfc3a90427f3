import Foundation
import PassIdentifiers
import PassServerTesting
import Testing

@testable import Storage

/// What a phone's requests cost the database: a capped registration is one round trip on
/// PostgreSQL (its pass lock, upsert, eviction, tallies and `pass.added` sent together), the head
/// of a pass is one statement, and so is the head with the whole pass for a phone whose pass
/// changed; the single round trip keeps the lock's guarantees under concurrency.
@Suite("Device requests' round trips", .offCooperativePool, .timeLimit(.minutes(3)))
struct DeviceRoundTripTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func register(
        _ session: StoreSession, device: DeviceLibraryIdentifier, serial: SerialNumber, at seconds: Double = 0, limit: Int = 3
    ) throws -> RegistrationResult {
        try session.registrations.upsertRegistration(
            deviceLibraryIdentifier: device, pushToken: .fixture("t-\(device)"), passTypeIdentifier: StoreFixture.passType, serialNumber: serial,
            now: now.addingTimeInterval(seconds), keepingAtMost: limit
        )
    }

    /// Round trips `body` takes on the session's PostgreSQL connection.
    private func roundTrips(_ session: StoreSession, _ body: () throws -> Void) throws -> Int {
        guard let connection = session.connection as? PGConnection else { throw StorageError(.backend, "not PostgreSQL") }
        let before = connection.roundTrips
        try body()
        return connection.roundTrips - before
    }

    @Test("PostgreSQL: a capped registration is one round trip: first device, re-registration, and a new device evicting the oldest")
    func cappedRegistrationIsOneRoundTrip() throws {
        let fixture = try StoreFixture(.postgres)
        let endpoint = try WebhookOutboxTests.endpoint(fixture, [.passAdded])
        try fixture.makePass(serial: "WARM", now: now)
        try fixture.makePass(serial: "ONE", now: now)
        try fixture.store.withSession(.write) { session in
            // Prepares the statements (the first run of a text is a prepare and an execute).
            _ = try register(session, device: "warm", serial: "WARM")
            var trips: [Int] = []
            var results: [RegistrationResult] = []
            for (index, device) in (["a", "b", "c", "a", "d"] as [DeviceLibraryIdentifier]).enumerated() {
                trips.append(try roundTrips(session) { results.append(try register(session, device: device, serial: "ONE", at: Double(index))) })
            }
            #expect(results == [.created, .created, .created, .updated, .created])
            #expect(trips == [1, 1, 1, 1, 1], "round trips per registration: \(trips)")
        }
        // What the one round trip did: b, the least recently updated, gave way to d and its device
        // row went with it; one pass.added, for the first device.
        let devices = Set(try fixture.store.execute("SELECT device_library_identifier FROM registrations WHERE serial_number = 'ONE'").map { try $0.string("device_library_identifier") })
        #expect(devices == ["a", "c", "d"])
        #expect(try fixture.store.execute("SELECT 1 AS one FROM devices WHERE device_library_identifier = 'b'").isEmpty)
        #expect(try WebhookOutboxTests.recorded(fixture).filter { $0 == "pass.added" } == ["pass.added", "pass.added"], "WARM's first device and ONE's")
        #expect(try WebhookOutboxTests.claim(fixture, [endpoint], now: now).count == 2)
    }

    @Test("PostgreSQL: an unknown pass is notFound from the one pipeline (then its ROLLBACK), and nothing of it stays")
    func unknownPassInOneRoundTrip() throws {
        let fixture = try StoreFixture(.postgres)
        try fixture.makePass(serial: "WARM", now: now)
        try fixture.store.withSession(.write) { session in
            _ = try register(session, device: "warm", serial: "WARM")
            var code: StorageError.Code?
            let trips = try roundTrips(session) {
                do { _ = try register(session, device: "ghost", serial: "MISSING") } catch let error as StorageError { code = error.code }
            }
            #expect(code == .notFound)
            // The pipeline stopped at the failed statement, leaving the transaction to roll back.
            #expect(trips == 2)
        }
        #expect(try fixture.store.execute("SELECT 1 AS one FROM devices WHERE device_library_identifier = 'ghost'").isEmpty, "the device row rolled back")
    }

    @Test("PostgreSQL: first devices of a pass registering at once record pass.added once, and the cap holds")
    func concurrentFirstDevices() throws {
        let fixture = try StoreFixture(.postgres, options: StoreOptions(poolSize: 16))
        _ = try WebhookOutboxTests.endpoint(fixture, [.passAdded])
        let serials: [SerialNumber] = (0..<8).map { SerialNumber("RACE\($0)") }
        for serial in serials { try fixture.makePass(serial: serial, now: now) }
        for serial in serials {
            try onThreads(12) { index in
                _ = try fixture.store.withSession(.write) { session in
                    try register(session, device: DeviceLibraryIdentifier("\(serial)-\(index)"), serial: serial, at: Double(index), limit: 5)
                }
            }
        }
        let added = try fixture.store.execute("""
            SELECT p.serial_number, count(*) AS n FROM webhook_events w JOIN passes p ON p.id = w.pass_id
            WHERE w.event_type = 'pass.added' GROUP BY p.serial_number
            """)
        let counts = try added.map { try $0.int("n") }
        #expect(added.count == serials.count)
        #expect(counts.allSatisfy { $0 == 1 }, "pass.added per pass: \(counts)")
        for serial in serials {
            let count = try fixture.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: StoreFixture.passType, serialNumber: serial) }
            #expect(count == 5, "\(serial): \(count) registrations")
        }
    }

    @Test("the head of a pass: token hash, revision, Last-Modified, served revision; nil for an unknown pass", arguments: Backend.allCases)
    func passHead(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let pass = try fixture.makePass(serial: "HEAD", now: now)
        let head = try fixture.store.withSession(.read) { try $0.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "HEAD") }
        #expect(head == PassHead(pass))
        #expect(head?.authenticationTokenHash == Array("auth-HEAD".utf8))
        #expect(head?.servedRevision == nil)
        try fixture.store.withSession(.write) { session in
            try session.reach.recordReach(ReachMarks(served: [.init(passTypeIdentifier: StoreFixture.passType, serialNumber: "HEAD", revision: pass.revision, at: now)]))
        }
        #expect(try fixture.store.withSession(.read) { try $0.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "HEAD") }?.servedRevision == pass.revision)
        #expect(try fixture.store.withSession(.read) { try $0.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "NONE") } == nil)
    }

    @Test("PostgreSQL: the head of a pass is one round trip")
    func passHeadIsOneRoundTrip() throws {
        let fixture = try StoreFixture(.postgres)
        try fixture.makePass(serial: "HEAD", now: now)
        try fixture.store.withSession(.read) { session in
            _ = try session.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "HEAD")
            #expect(try roundTrips(session) { _ = try session.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "HEAD") } == 1)
        }
    }

    @Test("the head with the whole pass: the pass and its event only when modified after the date asked about, else the head alone; nil for an unknown pass", arguments: Backend.allCases)
    func passHeadWithWholePass(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        let pass = try fixture.makePass(serial: "WHOLE", eventID: event.id, now: now)
        let read = { (since: Int64) in
            try fixture.store.withSession(.read) { try $0.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "WHOLE", wholeIfModifiedAfter: since) }
        }
        let expected = try #require(try fixture.store.withSession(.read) { try $0.passes.passWithEvent(passTypeIdentifier: StoreFixture.passType, serialNumber: "WHOLE") })
        #expect(expected.event == event)

        // A phone holding an older pass: the whole pass and its event come with the head.
        let changed = try #require(try read(pass.modifiedAt - 1))
        #expect(changed.head == PassHead(pass))
        #expect(changed.whole?.pass == expected.pass)
        #expect(changed.whole?.event == event)

        // A phone holding this pass (a 304), or one dated after it: the head alone.
        for since in [pass.modifiedAt, pass.modifiedAt + 60] {
            let unchanged = try #require(try read(since))
            #expect(unchanged.head == PassHead(pass))
            #expect(unchanged.whole == nil, "since \(since)")
        }

        // A pass without an event, changed: the pass whole, no event.
        let lone = try fixture.makePass(serial: "LONE", now: now)
        let loneRead = try #require(try fixture.store.withSession(.read) {
            try $0.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "LONE", wholeIfModifiedAfter: 0)
        })
        #expect(loneRead.whole?.pass == lone)
        #expect(loneRead.whole != nil && loneRead.whole?.event == nil)

        #expect(try fixture.store.withSession(.read) { try $0.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "NONE", wholeIfModifiedAfter: 0) } == nil)
    }

    @Test("PostgreSQL: the head with the whole pass is one round trip, the pass changed or not")
    func passHeadWithWholePassIsOneRoundTrip() throws {
        let fixture = try StoreFixture(.postgres)
        let event = try fixture.makeEvent(now: now)
        let pass = try fixture.makePass(serial: "WHOLE", eventID: event.id, now: now)
        try fixture.store.withSession(.read) { session in
            // Each statement's first use prepares it (a round trip of its own); count the uses after.
            _ = try session.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "WHOLE", wholeIfModifiedAfter: 0)
            _ = try session.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "WHOLE")
            _ = try session.passes.passWithEvent(passTypeIdentifier: StoreFixture.passType, serialNumber: "WHOLE")
            for since in [pass.modifiedAt - 1, pass.modifiedAt] {
                var whole: (pass: StoredPass, event: Event?)?
                let trips = try roundTrips(session) {
                    whole = try session.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "WHOLE", wholeIfModifiedAfter: since)?.whole
                }
                #expect(trips == 1, "since \(since)")
                #expect((whole != nil) == (since < pass.modifiedAt), "since \(since)")
            }
            // The whole pass took one statement where the head and then the pass took two.
            let apart = try roundTrips(session) {
                _ = try session.passes.passHead(passTypeIdentifier: StoreFixture.passType, serialNumber: "WHOLE")
                _ = try session.passes.passWithEvent(passTypeIdentifier: StoreFixture.passType, serialNumber: "WHOLE")
            }
            #expect(apart == 2)
        }
    }
}

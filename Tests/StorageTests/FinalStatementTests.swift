import Foundation
import PassServerTesting
@testable import Storage
import Synchronization
import Testing

/// A transaction's final statement (`executeFinal`) and the COMMIT sent with it (on PostgreSQL in
/// one pipelined round trip): committed before the body returns in the outermost transaction, a
/// plain statement in a nested one, and every failure rolled back with the connection left usable.
@Suite("A transaction's final statement and its commit", .offCooperativePool)
struct FinalStatementTests {
    struct Boom: Error {}

    /// An INSERT of one event row, the statement the tests end their transactions with.
    static func insertEvent(_ id: String) -> SQLQuery {
        """
        INSERT INTO events (id, name, venue, starts_at, time_zone, template, revision, created_at, updated_at)
        VALUES (\(id), 'Final', 'Hall', 1900000000, 'UTC', 'event', 0, 0, 0)
        """
    }

    /// A count as another store on the same database sees it (committed rows only).
    static func committed(_ fixture: StoreFixture, _ query: SQLQuery, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        let other = try fixture.reopen()
        defer { other.close() }
        let rows = try other.withSession(.read) { try $0.execute(query) }
        return try #require(rows.first, sourceLocation: sourceLocation).int64("n")
    }

    static func committedEvents(_ fixture: StoreFixture, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        try committed(fixture, "SELECT count(*) AS n FROM events", sourceLocation: sourceLocation)
    }

    static func revision(_ fixture: StoreFixture, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        try committed(fixture, "SELECT value AS n FROM counters WHERE name = 'revision'", sourceLocation: sourceLocation)
    }

    static func checkedIn(_ fixture: StoreFixture, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        try committed(fixture, "SELECT count(*) AS n FROM checkins", sourceLocation: sourceLocation)
    }

    /// The connection a session runs on: the server's backend on PostgreSQL, nil on SQLite.
    static func backendPID(_ session: StoreSession, _ backend: Backend, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64? {
        guard backend == .postgres else { return nil }
        return try #require(try session.execute("SELECT pg_backend_pid() AS pid").first, sourceLocation: sourceLocation).int64("pid")
    }

    @Test(arguments: Backend.allCases)
    func theOutermostTransactionIsCommittedByItsFinalStatement(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let seen = Mutex<(before: Int64, after: Int64)?>(nil)
        let rows = try fixture.store.transaction { session in
            try session.execute(Self.insertEvent("first"))
            let before = try Self.committedEvents(fixture)
            let rows = try session.executeFinal("\(Self.insertEvent("second")) RETURNING id")
            // Still inside the body: another connection already sees both rows.
            let after = try Self.committedEvents(fixture)
            seen.withLock { $0 = (before, after) }
            return rows
        }
        #expect(try rows.first?.string("id") == "second", "the statement's rows come back")
        #expect(seen.withLock { $0?.before } == 0, "nothing was committed before the final statement")
        #expect(seen.withLock { $0?.after } == 2, "the final statement committed the transaction")
    }

    @Test(arguments: Backend.allCases)
    func aFinalStatementInANestedTransactionCommitsNothingEarly(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let seenInside = Mutex<Int64?>(nil)
        #expect(throws: Boom.self) {
            try fixture.store.transaction { session in
                _ = try session.transaction { try session.executeFinal(Self.insertEvent("nested")) }
                try session.execute(Self.insertEvent("after"))
                let committed = try Self.committedEvents(fixture)
                seenInside.withLock { $0 = committed }
                throw Boom()
            }
        }
        #expect(seenInside.withLock { $0 } == 0, "the nested final statement did not commit")
        #expect(try Self.committedEvents(fixture) == 0, "the outer rollback took it with it")

        try fixture.store.transaction { session in
            _ = try session.transaction { try session.executeFinal(Self.insertEvent("nested")) }
            try session.execute(Self.insertEvent("after"))
        }
        #expect(try Self.committedEvents(fixture) == 2, "both committed once the outer transaction returned")
    }

    @Test(arguments: Backend.allCases)
    func noStatementRunsAfterTheFinalOne(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let code = storageCode {
            try fixture.store.transaction { session in
                try session.executeFinal(Self.insertEvent("final"))
                try session.execute(Self.insertEvent("late"))
            }
        }
        #expect(code == .backend)
        // The final statement's work stays committed (it cannot be undone); the late one never ran.
        #expect(try Self.committedEvents(fixture) == 1)
        let ids = try fixture.store.withSession(.read) { try $0.execute("SELECT id FROM events").map { try $0.string("id") } }
        #expect(ids == ["final"])
        // The session's next transaction starts afresh.
        _ = try fixture.store.transaction { try $0.executeFinal(Self.insertEvent("next")) }
        #expect(try Self.committedEvents(fixture) == 2)
    }

    /// A failed final statement (a unique violation) rolls back the whole transaction, and the
    /// pool's only connection comes back idle and is lent again (the same server backend).
    @Test(arguments: Backend.allCases)
    func aFailedFinalStatementRollsBackAndLeavesTheConnectionUsable(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend, options: StoreOptions(poolSize: 1, acquireTimeout: .seconds(5)))
        let store = fixture.store
        let event = try fixture.makeEvent()
        let taken = try fixture.makePass(serial: "taken", eventID: event.id)
        _ = try store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: taken.passTypeIdentifier, serialNumber: taken.serialNumber,
                              change: PassChange(externalID: .some("EXT-1")), now: Date())
        }
        let pass = try fixture.makePass(serial: "renamed", eventID: event.id)
        let pidBefore = try store.withSession(.read) { try Self.backendPID($0, backend) }
        let revisionBefore = try Self.revision(fixture)

        // The name change alone would succeed; the external id another ticket has fails the
        // pass change, the final statement of the update's transaction.
        let code = storageCode {
            _ = try store.withSession(.write) {
                try $0.passes.updatePass(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber,
                                  change: PassChange(attendeeName: "Grace", externalID: .some("EXT-1")), now: Date())
            }
        }
        #expect(code == .conflict)
        let after = try #require(try store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber) })
        #expect(after.attendeeName == "Ada")
        #expect(after.revision == pass.revision)
        #expect(try Self.revision(fixture) == revisionBefore, "the revision taken was rolled back")

        // The same connection serves the next transaction, which commits.
        let pidAfter = try store.withSession(.read) { try Self.backendPID($0, backend) }
        #expect(pidAfter == pidBefore)
        let update = try store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber,
                              change: PassChange(attendeeName: "Grace"), now: Date())
        }
        #expect(update.pass.attendeeName == "Grace")
        #expect(try Self.revision(fixture) == revisionBefore + 1)
    }

    /// A COMMIT that fails after its final statement succeeded (a deferred foreign key checked at
    /// commit) commits nothing, throws the constraint's code, and the connection stays usable.
    @Test(arguments: Backend.allCases)
    func aFailedCommitAfterTheFinalStatementKeepsNothing(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend, options: StoreOptions(poolSize: 1, acquireTimeout: .seconds(5)))
        let store = fixture.store
        try store.execute("""
            CREATE TABLE final_parent (id INTEGER PRIMARY KEY);
            """)
        try store.execute("""
            CREATE TABLE final_child (id INTEGER PRIMARY KEY,
                parent INTEGER REFERENCES final_parent (id) DEFERRABLE INITIALLY DEFERRED)
            """)
        let pidBefore = try store.withSession(.read) { try Self.backendPID($0, backend) }
        let code = storageCode {
            try store.transaction { session in
                try session.execute(Self.insertEvent("lost"))
                // Accepted by the statement, refused by the COMMIT: parent 7 does not exist.
                try session.executeFinal("INSERT INTO final_child (id, parent) VALUES (1, 7)")
            }
        }
        #expect(code == .notFound)
        #expect(try Self.committedEvents(fixture) == 0)
        #expect(try Self.committed(fixture, "SELECT count(*) AS n FROM final_child") == 0)
        #expect(try store.withSession(.read) { try Self.backendPID($0, backend) } == pidBefore)
        // Proof the same final statement can commit: with its parent, it does.
        try store.transaction { session in
            try session.execute("INSERT INTO final_parent (id) VALUES (7)")
            try session.executeFinal("INSERT INTO final_child (id, parent) VALUES (1, 7)")
        }
        #expect(try Self.committed(fixture, "SELECT count(*) AS n FROM final_child") == 1)
    }

    /// A check-in is committed when the call returns; inside another transaction it waits for
    /// that one (and goes with its rollback), its revision too.
    @Test(arguments: Backend.allCases)
    func aCheckInCommitsWithItsOwnTransactionOnly(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let pass = try fixture.makePass(serial: "door")
        let scan = Scan(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, scannedAt: Date(), gate: "A")
        let revisionBefore = try Self.revision(fixture)

        let seenInside = Mutex<(checkIns: Int64, revision: Int64)?>(nil)
        #expect(throws: Boom.self) {
            try store.transaction { session in
                guard case .checkedIn = try session.checkIns.checkIn(scan, now: Date()) else { throw StorageError(.backend, "not checked in") }
                let seen = (try Self.checkedIn(fixture), try Self.revision(fixture))
                seenInside.withLock { $0 = seen }
                throw Boom()
            }
        }
        #expect(seenInside.withLock { $0?.checkIns } == 0, "the nested check-in did not commit on its own")
        #expect(seenInside.withLock { $0?.revision } == revisionBefore)
        #expect(try Self.checkedIn(fixture) == 0)
        #expect(try Self.revision(fixture) == revisionBefore)

        let outcome = try store.withSession(.write) { try $0.checkIns.checkIn(scan, now: Date()) }
        guard case .checkedIn(let checked, _, _) = outcome else {
            Issue.record("expected a check-in, got \(outcome)")
            return
        }
        #expect(try Self.checkedIn(fixture) == 1)
        #expect(try Self.revision(fixture) == revisionBefore + 1)
        #expect(checked.revision == revisionBefore + 1)
        let stored = try #require(try store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber) })
        #expect(stored.checkedInAt != nil)

        // Undone the same way: committed when the call returns.
        _ = try store.withSession(.write) {
            try $0.checkIns.undoCheckIn(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, undoneBy: "test", now: Date())
        }
        #expect(try Self.checkedIn(fixture) == 0)
        #expect(try Self.revision(fixture) == revisionBefore + 2)
    }

    /// The connection lost between the pass's lock and the pipelined change and COMMIT: the
    /// change is `.unavailable` as any statement on a lost connection, nothing is kept, and the
    /// pool replaces the connection.
    @Test func aConnectionLostBeforeThePipelineIsUnavailable() throws {
        let fixture = try StoreFixture(.postgres, options: StoreOptions(poolSize: 1, acquireTimeout: .seconds(5)))
        let admin = try fixture.reopen(options: StoreOptions(poolSize: 1))
        defer { admin.close() }
        let pass = try fixture.makePass(serial: "lost")
        let revisionBefore = try Self.revision(fixture)
        let decided = Mutex(false)
        let code = storageCode {
            _ = try fixture.store.withSession(.write) { session in
                let pid = try #require(try Self.backendPID(session, .postgres))
                return try session.passes.updatePass(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, now: Date()) { _ in
                    // Under the pass's lock, just before the final statement is sent.
                    let rows = try admin.execute("SELECT pg_terminate_backend(CAST(\(pid) AS integer), 10000) AS done")
                    #expect(try rows.first?.int64("done") == 1)
                    decided.withLock { $0 = true }
                    return PassChange(attendeeName: "Grace")
                }
            }
        }
        #expect(decided.withLock { $0 })
        #expect(code == .unavailable)
        #expect(try Self.revision(fixture) == revisionBefore)
        let stored = try #require(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber) })
        #expect(stored.attendeeName == "Ada")
        // The next call reconnects and the same change commits.
        let update = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber,
                              change: PassChange(attendeeName: "Grace"), now: Date())
        }
        #expect(update.pass.attendeeName == "Grace")
    }
}

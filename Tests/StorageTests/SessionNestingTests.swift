import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Synchronization
import Testing

/// Nested use of one store on one thread: the same session, one transaction, the same outcome on
/// both backends.
@Suite("Nested sessions and transactions", .offCooperativePool, .timeLimit(.minutes(3)))
struct SessionNestingTests {
    struct Boom: Error {}

    static func newEvent(_ name: String) -> NewEvent {
        NewEvent(name: name, venue: "Hall", startsAt: Date(timeIntervalSince1970: 1_900_000_000), timeZone: "UTC", template: "event")
    }

    /// Events as another store on the same database sees them (committed rows only).
    static func committedEvents(_ fixture: StoreFixture, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        let other = try fixture.reopen()
        defer { other.close() }
        let rows = try other.withSession(.read) { try $0.execute("SELECT count(*) AS n FROM events") }
        let row = try #require(rows.first, sourceLocation: sourceLocation)
        return try row.int64("n")
    }

    /// With one connection in the pool (one SQLite reader) and a 2 s acquire deadline, a nested
    /// session would time out if it borrowed a second connection: it gets the open one instead.
    @Test(arguments: Backend.allCases)
    func nestedUseReusesTheOpenSession(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend, options: StoreOptions(poolSize: 1, acquireTimeout: .seconds(2)))
        let store = fixture.store
        let started = ContinuousClock.now
        try store.withSession(.read) { outer in
            try store.withSession(.read) { inner in #expect(inner === outer) }
        }
        try store.withSession(.write) { outer in
            try store.withSession(.read) { inner in #expect(inner === outer) }
            try store.withSession(.write) { inner in #expect(inner === outer) }
            try store.transaction { inner in
                #expect(inner === outer)
                try store.transaction { innermost in #expect(innermost === outer) }
            }
        }
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    /// The reuse is per thread: another thread inside the same moment borrows a session (and on
    /// PostgreSQL a connection) of its own.
    @Test(arguments: Backend.allCases)
    func anotherThreadBorrowsItsOwnSession(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend, options: StoreOptions(poolSize: 2, acquireTimeout: .seconds(5)))
        let store = fixture.store
        let pid: SQLQuery = "SELECT \(unsafeRaw: backend == .postgres ? "pg_backend_pid()" : "0") AS pid"
        try store.withSession(.read) { outer in
            let outerPID = try #require(try outer.execute(pid).first).int64("pid")
            let outerID = ObjectIdentifier(outer)
            let sameSession = Mutex<Bool?>(nil)
            let otherPID = Mutex<Int64?>(nil)
            try onThreads(1) { _ in
                try store.withSession(.read) { inner in
                    sameSession.withLock { $0 = ObjectIdentifier(inner) == outerID }
                    let value = try #require(try inner.execute(pid).first).int64("pid")
                    otherPID.withLock { $0 = value }
                }
            }
            #expect(sameSession.withLock { $0 } == false)
            if backend == .postgres { #expect(otherPID.withLock { $0 } != outerPID) }
        }
    }

    @Test(arguments: Backend.allCases)
    func writeInsideReadIsRefused(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        #expect(storageCode {
            try store.withSession(.read) { _ in
                _ = try store.transaction { try $0.events.createEvent(Self.newEvent("Refused"), now: Date()) }
            }
        } == .invalidValue)
        #expect(storageCode {
            try store.withSession(.read) { _ in
                _ = try store.withSession(.write) { try $0.events.createEvent(Self.newEvent("Refused"), now: Date()) }
            }
        } == .invalidValue)
        // The same write outside the read session is fine: the refusal is about nesting.
        _ = try store.transaction { try $0.events.createEvent(Self.newEvent("Allowed"), now: Date()) }
        #expect(try Self.committedEvents(fixture) == 1)
    }

    /// A nested transaction joins the outer one: what it did is not committed when it returns, and
    /// goes when the outer one rolls back.
    @Test(arguments: Backend.allCases)
    func nestedTransactionJoinsTheOuterOne(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let seenInside = Mutex<Int64?>(nil)
        #expect(throws: Boom.self) {
            try store.transaction { _ in
                _ = try store.transaction { try $0.events.createEvent(Self.newEvent("Inner"), now: Date()) }
                let committed = try Self.committedEvents(fixture)
                seenInside.withLock { $0 = committed }
                throw Boom()
            }
        }
        #expect(seenInside.withLock { $0 } == 0, "the inner transaction did not commit on its own")
        #expect(try Self.committedEvents(fixture) == 0, "the outer rollback took the inner work with it")

        try store.transaction { _ in
            _ = try store.transaction { try $0.events.createEvent(Self.newEvent("Inner"), now: Date()) }
        }
        #expect(try Self.committedEvents(fixture) == 1, "both returned: committed once")
    }

    /// A nested transaction that throws dooms the outer one, even when the outer body catches the
    /// error: later statements fail and the outermost call rolls back and throws.
    @Test(arguments: Backend.allCases)
    func failedNestedTransactionRollsBackTheOuterOne(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let caught = Mutex<(any Error)?>(nil)
        let later = Mutex<StorageError.Code?>(nil)
        let outcome = storageCode {
            try store.transaction { session in
                _ = try session.events.createEvent(Self.newEvent("Outer"), now: Date())
                do {
                    try store.transaction { inner in
                        _ = try inner.events.createEvent(Self.newEvent("Inner"), now: Date())
                        throw Boom()
                    }
                } catch {
                    caught.withLock { $0 = error }
                }
                let code = storageCode { _ = try session.events.createEvent(Self.newEvent("After"), now: Date()) }
                later.withLock { $0 = code }
            }
        }
        #expect(caught.withLock { $0 } is Boom, "the nested call rethrew the body's own error")
        #expect(later.withLock { $0 } == .backend, "a statement after the failure is refused")
        #expect(outcome == .backend, "the outer transaction reports the rollback")
        #expect(try Self.committedEvents(fixture) == 0)
        // The session is usable again afterwards.
        _ = try store.transaction { try $0.events.createEvent(Self.newEvent("Next"), now: Date()) }
        #expect(try Self.committedEvents(fixture) == 1)
    }
}

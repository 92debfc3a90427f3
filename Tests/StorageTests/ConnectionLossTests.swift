import Foundation
import Logging
import PassIdentifiers
import PassServerTesting
import Storage
import Synchronization
import Testing

/// Every way a lost or busy database surfaces is a transient `StorageError` (`.unavailable` or
/// `.timeout`), the broken connection is discarded, and the next call reconnects by itself.
/// PostgreSQL sessions are ended with `pg_terminate_backend` (only this test's own backend, so the
/// shared cluster and other tests are untouched); a whole-server outage uses a private cluster.
@Suite("Connection loss and busy databases", .offCooperativePool, .timeLimit(.minutes(3)))
struct ConnectionLossTests {
    /// Terminates the backend `pid` from another session and waits (up to 10 s) until it has exited.
    private static func terminate(_ pid: Int64, via admin: any Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let rows = try admin.execute("SELECT pg_terminate_backend(CAST(\(pid) AS integer), 10000) AS done")
        #expect(try rows.first?.int64("done") == 1, sourceLocation: sourceLocation)
    }

    /// Inserts a pass with unique tokens inside the caller's transaction.
    private static func insert(_ serial: SerialNumber, byte: UInt8, in session: StoreSession) throws {
        _ = try session.passes.insertPass(NewPass(
            passTypeIdentifier: StoreFixture.passType, serialNumber: serial, authenticationTokenHash: [byte],
            downloadTokenHash: [byte], attendeeName: "a"
        ), now: Date())
    }

    private static func backendPID(_ session: StoreSession, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        try #require(try session.execute("SELECT pg_backend_pid() AS pid").first, sourceLocation: sourceLocation).int64("pid")
    }

    @Test func connectionResetMidTransactionIsUnavailableAndNothingIsKept() throws {
        let fixture = try StoreFixture(.postgres, options: StoreOptions(poolSize: 1))
        let admin = try fixture.reopen(options: StoreOptions(poolSize: 1))
        defer { admin.close() }
        let code = storageCode {
            try fixture.store.transaction { session in
                try Self.insert("mid", byte: 1, in: session)
                try Self.terminate(try Self.backendPID(session), via: admin)
                _ = try session.execute("SELECT 1 AS one")
            }
        }
        #expect(code == .unavailable)
        // The pool's only connection was broken: it is replaced by a new one on the next call.
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "mid") } == nil)
        try fixture.makePass(serial: "after")
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "after") } != nil)
    }

    @Test func commitOnALostConnectionIsUnavailableAndNotCommitted() throws {
        let fixture = try StoreFixture(.postgres, options: StoreOptions(poolSize: 1))
        let admin = try fixture.reopen(options: StoreOptions(poolSize: 1))
        defer { admin.close() }
        let reached = Mutex(false)
        let code = storageCode {
            try fixture.store.transaction { session in
                try Self.insert("uncommitted", byte: 2, in: session)
                // The body returns normally: the failure is COMMIT's.
                try Self.terminate(try Self.backendPID(session), via: admin)
                reached.withLock { $0 = true }
            }
        }
        #expect(reached.withLock { $0 })
        #expect(code == .unavailable)
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "uncommitted") } == nil)
        try fixture.store.ping()
    }

    @Test func idleConnectionEndedByTheServerIsReplacedBeforeUse() throws {
        let fixture = try StoreFixture(.postgres, options: StoreOptions(poolSize: 1))
        let admin = try fixture.reopen(options: StoreOptions(poolSize: 1))
        defer { admin.close() }
        let pid = try fixture.store.withSession(.read) { try Self.backendPID($0) }
        try Self.terminate(pid, via: admin)
        // The caller's query does not fail: the idle connection is found dead and reconnected first.
        let next = try fixture.store.withSession(.read) { try Self.backendPID($0) }
        #expect(next != pid)
    }

    @Test func waitingForAPooledConnectionTooLongIsATimeout() throws {
        let store = PostgresStore(url: try TestPostgres.adminURL(), options: StoreOptions(poolSize: 1, acquireTimeout: .milliseconds(200)))
        defer { store.close() }
        // The pool's only connection is lent out.
        let lock = WriteLockHolder(store, transaction: false)
        let code = storageCode { try store.ping() }
        lock.release()
        #expect(code == .timeout)
        try store.ping()
    }

    @Test func sqliteLockedByAnotherConnectionBeyondTheBusyTimeoutIsATimeout() throws {
        let fixture = try StoreFixture(.sqlite, options: StoreOptions(busyTimeout: .milliseconds(200)))
        // Another process (here: another store on the same file) holds the write lock.
        let other = try fixture.reopen()
        defer { other.close() }
        let lock = WriteLockHolder(other)
        let write = storageCode { try fixture.makePass(serial: "blocked") }
        // Reads go on in WAL mode.
        let read = storageCode { _ = try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "x") } }
        lock.release()
        #expect(write == .timeout)
        #expect(read == nil)
        try fixture.makePass(serial: "free")
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "free") } != nil)
    }

    @Test func sqliteWriterHeldTooLongInThisProcessIsATimeout() throws {
        let fixture = try StoreFixture(.sqlite, options: StoreOptions(acquireTimeout: .milliseconds(200)))
        let lock = WriteLockHolder(fixture.store, transaction: false)
        let code = storageCode { try fixture.makePass(serial: "queued") }
        lock.release()
        #expect(code == .timeout)
        try fixture.makePass(serial: "queued")
    }

    /// Async, with the cluster's slow steps (initdb, stop, start) on a thread of their own: the
    /// cooperative pool stays free for other tests.
    @Test func aServerOutageIsLoggedOnceEachWayAndRecoversWithoutANewStore() async throws {
        let cluster = try await onOwnThread { try TestPostgresCluster() }
        defer { cluster.stop() }
        let sink = MemorySink()
        let store = PostgresStore(url: cluster.url, options: StoreOptions(poolSize: 3, logger: Logger(label: "storage", sink: sink)))
        defer { store.close() }
        try onThreads(3) { _ in try store.ping() }

        try await onOwnThread { try cluster.stopServer() }
        for _ in 0..<10 {
            #expect(storageCode { try store.ping() } == .unavailable)
        }
        #expect(sink.lines.filter { $0.contains("database connection lost") }.count == 1, "\(sink.lines)")
        try await onOwnThread { try cluster.startServer() }
        var recovered = false
        for _ in 0..<50 where !recovered {
            recovered = (try? store.ping()) != nil
            if !recovered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(recovered)
        try onThreads(3) { _ in try store.ping() }
        #expect(sink.lines.filter { $0.contains("database connection re-established") }.count == 1, "\(sink.lines)")
        #expect(!sink.lines.contains { $0.contains(cluster.url) })
    }
}

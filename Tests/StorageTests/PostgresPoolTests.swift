import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Synchronization
import Testing

@Suite("PostgreSQL pool", .offCooperativePool, .timeLimit(.minutes(3)))
struct PostgresPoolTests {
    @Test func statementTimeoutIsReportedAsTimeout() throws {
        let store = PostgresStore(url: try TestPostgres.adminURL(), options: StoreOptions(poolSize: 1, statementTimeout: .milliseconds(200)))
        defer { store.close() }
        #expect(storageCode { try store.execute("SELECT pg_sleep(5)") } == .timeout)
        // The connection is still usable after the cancelled statement.
        try store.ping()
    }

    @Test func poolNeverLendsOneConnectionToTwoThreads() throws {
        let store = PostgresStore(url: try TestPostgres.adminURL(), options: StoreOptions(poolSize: 2))
        defer { store.close() }
        #expect(store.poolSize == 2)
        let backends = Mutex<Set<Int64>>([])
        try onThreads(6) { _ in
            for _ in 0..<5 {
                let pid = try store.withSession(.read) { session -> Int64 in
                    let pid = try #require(try session.execute("SELECT pg_backend_pid() AS pid").first).int64("pid")
                    // While we hold the session, nobody else may run on this backend.
                    _ = try session.execute("SELECT pg_sleep(0.01)")
                    return pid
                }
                backends.withLock { _ = $0.insert(pid) }
            }
        }
        #expect(backends.withLock { $0.count } <= 2)
        #expect(StoreOptions.defaultPoolSize == 2 * ProcessInfo.processInfo.activeProcessorCount + 2)
    }
}

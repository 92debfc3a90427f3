import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

@Suite("pass-server prune", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct PruneCommandTests {
    /// A fresh, migrated database holding rows on both sides of every retention boundary (an hour
    /// either side: the binary reads the clock itself).
    private func database(_ backend: Backend) throws -> (store: any Store, url: String) {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passserver-prune")
        let url = try backend.freshDatabaseURL(in: directory)
        let store = try openStore(url: url)
        try store.migrate()
        try RetentionRows.populate(store, now: Date(), margin: 3_600, extraPushLog: 2)
        return (store, url)
    }

    @Test("removes what is past its retention and prints the counts per table", arguments: Backend.allCases)
    func removesAndReports(backend: Backend) throws {
        let (store, url) = try database(backend)
        defer { store.close() }
        let result = try PassServerExecutable.run(["prune", "--database-url", url])
        #expect(result.status == 0, "\(result.standardError)")
        // The push log entry exactly 30 days old when written is older by the time prune runs.
        #expect(result.standardOutput == """
            push_log: 4 removed
            push_outbox_failed: 1 removed
            mail_outbox_failed: 1 removed
            google_outbox_failed: 1 removed
            jobs: 1 removed
            registrations: 2 removed
            devices: 1 removed
            admin_sessions: 0 removed
            passes: 0 removed
            events: 0 removed
            google_wallet_nonces: 0 removed
            webhook_deliveries: 0 removed
            webhook_events: 0 removed

            """)
        #expect(try RetentionRows.remaining(store) == RetentionRows.survivors(exactEdge: false))
        // Nothing is left to remove the second time.
        let again = try PassServerExecutable.run(["prune"], environment: ["DATABASE_URL": url])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.split(separator: "\n").allSatisfy { $0.hasSuffix(": 0 removed") }, "\(again.standardOutput)")
    }

    @Test("retention flags apply: a 1 h push log retention removes the young push log entry too")
    func flags() throws {
        let (store, url) = try database(.sqlite)
        defer { store.close() }
        // The "young" entry is an hour short of 30 days old; the "edge" one is 30 days old.
        let result = try PassServerExecutable.run(["prune", "--push-log-retention", "1h", "--database-url", url])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("push_log: 5 removed\npush_outbox_failed: 2 removed\n"), "\(result.standardOutput)")
        let bad = try PassServerExecutable.run(["prune", "--job-retention", "soon", "--database-url", url])
        #expect(bad.status == 64)
        #expect(bad.standardError.contains("--job-retention"), "\(bad.standardError)")
    }

    @Test("while another process holds the sweep lease it exits 75 and deletes nothing", arguments: Backend.allCases)
    func busy(backend: Backend) throws {
        let (store, url) = try database(backend)
        defer { store.close() }
        let taken = try store.withSession(.write) {
            try $0.leases.acquireLease(RetentionSweep.leaseName, holder: "a running server", now: Date(), duration: .seconds(600))
        }
        try #require(taken)
        let before = try RetentionRows.remaining(store)
        // There is something to remove (what a prune that ran would leave differs).
        #expect(before != RetentionRows.survivors(exactEdge: false))
        let result = try PassServerExecutable.run(["prune", "--database-url", url])
        #expect(result.status == 75)
        #expect(result.standardError.contains("another process is sweeping"), "\(result.standardError)")
        #expect(try RetentionRows.remaining(store) == before, "no table lost a row")
    }
}

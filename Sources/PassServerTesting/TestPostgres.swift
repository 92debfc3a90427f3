// PostgreSQL for tests: a fresh database per test on the cluster `scripts/with-postgres.sh`
// started, and a way to restart that cluster.
//
// Threading: everything here blocks the calling thread (libpq, child processes); call it from a test
// body, not from code that must not block.

import Foundation
import Storage
import SystemSupport

/// Why PostgreSQL test support could not do what was asked. Tests fail with it; they never skip.
public struct TestPostgresError: Error, CustomStringConvertible {
    public var description: String
}

/// Access to the test PostgreSQL cluster named by `PASS_SERVER_TEST_DATABASE_URL`.
public enum TestPostgres {
    /// The administrative URL from `PASS_SERVER_TEST_DATABASE_URL`.
    public static func adminURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["PASS_SERVER_TEST_DATABASE_URL"], !url.isEmpty else {
            throw TestPostgresError(description: """
                PASS_SERVER_TEST_DATABASE_URL is not set: run the tests through scripts/with-postgres.sh \
                (make test does), e.g. scripts/with-postgres.sh swift test --skip-build
                """)
        }
        return url
    }

    /// Creates an empty database `t_<random>` and returns its URL.
    public static func createDatabase() throws -> String {
        let admin = try adminURL()
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let store = PostgresStore(url: admin, options: StoreOptions(poolSize: 1))
        defer { store.close() }
        // A name we generated from hex digits: safe as raw SQL (identifiers cannot be parameters).
        try store.execute(SQLQuery(unsafeRaw: "CREATE DATABASE \(name)"))
        return url(admin, database: name)
    }

    /// Drops a database made by `createDatabase` (connections to it are terminated first).
    public static func dropDatabase(url databaseURL: String) throws {
        let admin = try adminURL()
        guard let name = databaseURL.split(separator: "/").last?.split(separator: "?").first,
              name.hasPrefix("t_"), name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else { throw TestPostgresError(description: "not a test database URL") }
        let store = PostgresStore(url: admin, options: StoreOptions(poolSize: 1))
        defer { store.close() }
        try store.execute(SQLQuery(unsafeRaw: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"))
    }

    /// `admin` with its database name replaced.
    static func url(_ admin: String, database: String) -> String {
        var base = admin
        var query = ""
        if let mark = base.firstIndex(of: "?") {
            query = String(base[mark...])
            base = String(base[..<mark])
        }
        let schemeEnd = base.range(of: "://").map(\.upperBound) ?? base.startIndex
        if let slash = base[schemeEnd...].firstIndex(of: "/") {
            base = String(base[..<slash])
        }
        return base + "/" + database + query
    }

    /// Restarts the shared test cluster (`pg_ctl -m fast restart -w`), as the owner of its data
    /// directory. Every test using PostgreSQL at that moment sees its connections drop; tests that
    /// must not disturb others use `TestPostgresCluster` instead.
    public static func restartCluster() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let pgCtl = environment["PASS_SERVER_TEST_PG_CTL"], let data = environment["PASS_SERVER_TEST_PG_DATA"] else {
            throw TestPostgresError(description: "PASS_SERVER_TEST_PG_CTL and PASS_SERVER_TEST_PG_DATA must be set (scripts/with-postgres.sh sets them)")
        }
        let log = (data as NSString).deletingLastPathComponent + "/server.log"
        try runAsOwner(pgCtl, ["-D", data, "-l", log, "-m", "fast", "restart", "-w", "-t", "60"])
    }

    /// Runs a PostgreSQL program as `PASS_SERVER_TEST_PG_OWNER` (via `runuser` when we are root).
    ///
    /// `pg_ctl start` leaves a server running that must not hold our output pipes open, so the
    /// program's standard streams go to /dev/null.
    static func runAsOwner(_ program: String, _ arguments: [String]) throws {
        let owner = ProcessInfo.processInfo.environment["PASS_SERVER_TEST_PG_OWNER"] ?? ""
        var argv: [String]
        if getuid() == 0 {
            guard !owner.isEmpty else {
                throw TestPostgresError(description: "PASS_SERVER_TEST_PG_OWNER must be set when tests run as root")
            }
            argv = ["/usr/sbin/runuser", "-u", owner, "--", program] + arguments
        } else {
            argv = [program] + arguments
        }
        let termination: ChildProcess.Termination
        do {
            termination = try ChildProcess(argv[0], Array(argv.dropFirst()), standardOutput: .nullDevice, standardError: .nullDevice)
                .waitUntilExit()
        } catch {
            throw TestPostgresError(description: "could not run \(argv[0]): \(error)")
        }
        guard termination == .exited(0) else {
            throw TestPostgresError(description: "\((program as NSString).lastPathComponent) \(arguments.joined(separator: " ")) \(termination)")
        }
    }
}

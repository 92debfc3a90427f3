// A private PostgreSQL cluster for tests that restart the server, so that restarting it does not
// break other tests sharing the cluster of `scripts/with-postgres.sh`. It uses the same binaries
// (`PASS_SERVER_TEST_PG_CTL`'s directory) and owner; `initdb` takes a second or two.
//
// Threading: blocking; call from a test body.

import Foundation

/// A throwaway cluster on a free loopback port, stopped and deleted by `stop()`.
public final class TestPostgresCluster: Sendable {
    /// `postgres://passserver@127.0.0.1:<port>/postgres`.
    public let url: String
    private let pgCtl: String
    private let data: String
    private let directory: String
    private let serverOptions: String

    /// Runs `initdb` and starts the server.
    public init() throws {
        guard let pgCtl = ProcessInfo.processInfo.environment["PASS_SERVER_TEST_PG_CTL"] else {
            throw TestPostgresError(description: "PASS_SERVER_TEST_PG_CTL is not set: run the tests through scripts/with-postgres.sh")
        }
        self.pgCtl = pgCtl
        let bin = (pgCtl as NSString).deletingLastPathComponent
        // Inside the shared cluster's work directory when there is one: if this process dies
        // without `stop()`, scripts/with-postgres.sh deletes the directory and the orphaned
        // server shuts itself down once it notices its lock file is gone.
        let parent = ProcessInfo.processInfo.environment["PASS_SERVER_TEST_PG_DATA"]
            .map { ($0 as NSString).deletingLastPathComponent + "/" } ?? NSTemporaryDirectory()
        directory = parent + "private-" + UUID().uuidString
        data = directory + "/data"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0, let owner = ProcessInfo.processInfo.environment["PASS_SERVER_TEST_PG_OWNER"] {
            try FileManager.default.setAttributes([.ownerAccountName: owner], ofItemAtPath: directory)
        }
        let port = try Self.freePort()
        url = "postgres://passserver@127.0.0.1:\(port)/postgres"
        serverOptions = "-c listen_addresses=127.0.0.1 -c port=\(port) -c unix_socket_directories=\(directory) -c fsync=off"
        try TestPostgres.runAsOwner(bin + "/initdb", ["-D", data, "-U", "passserver", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"])
        try startServer()
    }

    /// Restarts the server (`-m fast`), waiting until it accepts connections again.
    public func restart() throws {
        try TestPostgres.runAsOwner(pgCtl, ["-D", data, "-l", directory + "/server.log", "-m", "fast", "restart", "-w", "-t", "60"])
    }

    /// Stops the server (connections fail until `start`).
    public func stopServer() throws {
        try TestPostgres.runAsOwner(pgCtl, ["-D", data, "-m", "fast", "stop", "-w"])
    }

    /// Starts a stopped server.
    public func startServer() throws {
        try TestPostgres.runAsOwner(pgCtl, ["-D", data, "-l", directory + "/server.log", "-w", "-t", "60", "-o", serverOptions, "start"])
    }

    /// Stops the server and deletes its files.
    public func stop() {
        try? TestPostgres.runAsOwner(pgCtl, ["-D", data, "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A loopback port nobody listens on right now.
    static func freePort() throws -> Int {
        guard let port = RestartablePort.bindLoopback(port: 0) else { throw TestPostgresError(description: "could not find a free port") }
        return port
    }
}

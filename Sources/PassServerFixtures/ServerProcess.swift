import ByteEncoding
package import Foundation
import Glibc
package import PassServerTesting
import Synchronization
package import SystemSupport

/// The built `pass-server` binary as a long-running child process. Output goes to files (a pipe
/// nobody drains would stall a chatty server), and the port is read from the "listening" log line.
package final class ServerProcess {
    package let process: ChildProcess
    package let outputPath: String
    package let errorPath: String

    /// The token secret the binary is given (the same bytes `TestApp` uses).
    package static let tokenSecret: [UInt8] = Array(repeating: 7, count: 32)

    /// Settings for `serve` against `databaseURL` with throwaway certificates; pushes are logged.
    package static func environment(certificates: TestCertificates, databaseURL: String) -> [String: String] {
        [
            "DATABASE_URL": databaseURL,
            "PUBLIC_URL": "https://passes.example.test",
            "ORGANIZATION_NAME": "Example Events",
            "TOKEN_SECRET": Hex.encode(tokenSecret),
            "PASS_CERTIFICATE": certificates.passCertificate,
            "PASS_PRIVATE_KEY": certificates.passKey,
            "WWDR_CERTIFICATE": certificates.wwdrCertificate,
            "PASSES_DIR": PassServerExecutable.packageRoot.appendingPathComponent("Passes").path,
            "APNS_MODE": "log",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_PORT": "0",
            "LOG_LEVEL": "info",
        ]
    }

    /// Runs in the package root unless `currentDirectory` is given.
    package init(_ arguments: [String], environment: [String: String], directory: String, currentDirectory: URL? = nil) throws {
        let name = UUID().uuidString.prefix(8)
        outputPath = "\(directory)/server-\(name).out"
        errorPath = "\(directory)/server-\(name).err"
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        for (key, value) in environment { base[key] = value }
        process = try ChildProcess(
            PassServerExecutable.path, arguments, environment: base, directory: (currentDirectory ?? PassServerExecutable.packageRoot).path,
            standardOutput: .file(outputPath), standardError: .file(errorPath)
        )
    }

    deinit {
        if process.isRunning { process.signal(SIGKILL) }
    }

    package var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
    package var standardOutput: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// The port from the "listening" line, waiting up to `timeout` seconds.
    package func port(timeout: TimeInterval = 60) async throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            for line in standardError.split(separator: "\n") where line.contains(": listening") {
                if let range = line.range(of: #"port=\d+"#, options: .regularExpression), let port = Int(line[range].dropFirst(5)) {
                    return port
                }
            }
            // The log is read once more after the deadline: a starved task may wake only after it,
            // long after the line was written.
            guard process.isRunning, Date() < deadline else { break }
            await AdminSupport.pause(0.05)
        }
        throw AdminSupport.Failure(description: "pass-server did not start listening: \(standardError.suffix(2_000))")
    }

    package func signal(_ number: Int32) {
        process.signal(number)
    }

    /// Waits up to `timeout` seconds for the exit; returns the status, or nil if still running.
    package func waitForExit(timeout: TimeInterval) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { await AdminSupport.pause(0.02) }
        guard !process.isRunning else { return nil }
        return process.terminationStatus
    }

    /// Watches on a thread of its own (every 2 ms, for up to `timeout` seconds) until `target`
    /// names a process, SIGKILLs it at once and returns its pid; nil if time ran out. A thread, not
    /// a task: a busy cooperative pool (a loaded machine, tests blocking it) must not delay a
    /// kill that has to land inside a short window, such as a batch in flight.
    package static func killAsSoonAs(timeout: TimeInterval = 60, _ target: @escaping @Sendable () -> pid_t?) async -> pid_t? {
        let outcome = Atomic<Int32>(0)  // 0 watching, -1 gave up, otherwise the pid killed
        Thread {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let pid = target() {
                    Glibc.kill(pid, SIGKILL)
                    outcome.store(pid, ordering: .sequentiallyConsistent)
                    return
                }
                usleep(2_000)
            }
            outcome.store(-1, ordering: .sequentiallyConsistent)
        }.start()
        while outcome.load(ordering: .sequentiallyConsistent) == 0 { await AdminSupport.pause(0.05) }
        let pid = outcome.load(ordering: .sequentiallyConsistent)
        return pid > 0 ? pid : nil
    }

    /// Runs `pass-server serve --development` in `directory` (on a free port of 127.0.0.1, with the
    /// repository's pass templates and `environment` on top) until it listens and `done` holds of
    /// it, for 30 s at most, then stops it with SIGTERM. Returns the stopped process, whose output
    /// the caller reads, and its exit status (nil if it had not exited 30 s after the signal; it is
    /// killed then).
    package static func runDevelopment(
        in directory: URL, environment: [String: String] = [:], until done: (ServerProcess) -> Bool
    ) async throws -> (server: ServerProcess, status: Int32?) {
        let defaults = [
            "HTTP_PORT": "0", "HTTP_HOST": "127.0.0.1",
            "PASSES_DIR": PassServerExecutable.packageRoot.appendingPathComponent("Passes").path,
        ]
        let server = try ServerProcess(
            ["serve", "--development"], environment: defaults.merging(environment) { $1 }, directory: directory.path, currentDirectory: directory
        )
        defer { server.forceKill() }
        _ = try await server.port()
        let deadline = Date().addingTimeInterval(30)
        while !done(server), Date() < deadline { await AdminSupport.pause(0.05) }
        server.signal(SIGTERM)
        return (server, await server.waitForExit(timeout: 30))
    }

    /// Kills the process (if running) and waits for it.
    package func forceKill() {
        if process.isRunning { signal(SIGKILL) }
        process.waitUntilExit()
    }
}

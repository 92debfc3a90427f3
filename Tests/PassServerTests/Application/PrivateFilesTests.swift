import Foundation
import PassServerTesting
import SystemSupport
import Testing

@testable import PassServer

/// Secrets and the database are readable by the server's user only, from the moment they exist.
@Suite("Private files", .offCooperativePool, .timeLimit(.minutes(4)))
struct PrivateFilesTests {
    static func mode(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode) & 0o777
    }

    @Test("--development creates .data/token-secret and the SQLite files 0600 under umask 022")
    func developmentFilesArePrivate() async throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "private-files")
        let errorPath = "\(directory)/server.err"
        let process = try ChildProcess(
            "/bin/sh",
            // The probe file shows what umask 022 gives a file created the ordinary way.
            ["-c", "umask 022 && touch umask-probe && exec \"$0\" serve --development", PassServerExecutable.path],
            environment: [
                "PATH": "/usr/bin:/bin", "HTTP_PORT": "0",
                "PASSES_DIR": PassServerExecutable.packageRoot.appendingPathComponent("Passes").path,
            ],
            directory: directory, standardOutput: .nullDevice, standardError: .file(errorPath)
        )
        defer {
            if process.isRunning { process.signal(SIGKILL) }
            process.waitUntilExit()
        }
        let log = { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
        try await eventually("the server listening: \(log().suffix(2_000))", timeout: 90) {
            log().contains(": listening") || !process.isRunning
        }
        try #require(process.isRunning, "the server did not start: \(log().suffix(2_000))")

        #expect(Self.mode("\(directory)/umask-probe") == 0o644, "umask 022 was in effect")
        for file in ["token-secret", "pass-server.sqlite", "pass-server.sqlite-wal", "pass-server.sqlite-shm"] {
            let mode = Self.mode("\(directory)/.data/\(file)")
            #expect(mode == 0o600, "\(file) has mode \(mode.map { String($0, radix: 8) } ?? "missing")")
        }
        process.signal(SIGTERM)
        try await eventually("the server stopped on SIGTERM") { !process.isRunning }
    }

    @Test("a private file is created 0600, once, and never replaces an existing one")
    func privateFileCreation() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "private-file")
        let path = "\(directory)/secret"
        #expect(try PrivateFile.create(path, bytes: Array("first".utf8)))
        #expect(Self.mode(path) == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first")
        #expect(try !PrivateFile.create(path, bytes: Array("second".utf8)), "an existing file is kept")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first")
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["secret"])
    }
}

import Foundation
import PassServerTesting
import Testing

/// `pass-server-bench` as bench/*.sh run it: the built executable, its help and exit codes, and a
/// push benchmark against a fake.
@Suite("pass-server-bench (the real executable)", .offCooperativePool, .timeLimit(.minutes(3)))
struct BenchProgramTests {
    @Test("--help lists every driver and exits 0; an unknown command or option exits 64 with the usage")
    func help() throws {
        let help = try run(try Self.program(), ["--help"])
        #expect(help.status == 0, "\(help.error)")
        for command in ["storage", "bundles", "tokens", "apns", "attendance"] {
            #expect(help.output.contains("\n  \(command) "), "\(command) missing from \(help.output)")
        }
        let apnsHelp = try run(try Self.program(), ["apns", "--help"])
        #expect(apnsHelp.status == 0)
        #expect(apnsHelp.output.contains("Usage: pass-server-bench apns --url"))

        let unknown = try run(try Self.program(), ["frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("unknown command 'frobnicate'"))
        let badOption = try run(try Self.program(), ["apns", "--nope"])
        #expect(badOption.status == 64)
        #expect(badOption.error.contains("unknown option '--nope'") && badOption.error.contains("Usage: pass-server-bench apns"))
    }

    @Test("apns sends the pushes it is asked for to the fake and prints the rate", .timeLimit(.minutes(1)))
    func apnsAgainstFake() throws {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "bench-program"))
        let fake = try FakeAPNs(configuration: FakeAPNs.Configuration(
            certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey, clientCAPath: nil
        ))
        defer { fake.shutdown() }
        let result = try run(
            try Self.program(),
            ["apns", "--url", fake.url, "--ca-file", certificates.rootCertificate, "--count", "40", "--connections", "1", "--concurrency", "4"]
        )
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("pushes=40 failures=0 seconds="), "\(result.output)")
        // One warm-up push, then the forty measured.
        #expect(fake.pushes.count == 41)
    }

    /// The `pass-server-bench` binary next to the test bundle (`swift build --build-tests` builds it).
    @Test("attendance seeds an event on SQLite and prints the page's percentiles as a Markdown row", .timeLimit(.minutes(1)))
    func attendance() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "bench-attendance")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(
            try Self.program(), ["attendance", "--database-url", "sqlite://\(directory)/bench.db", "--tickets", "400", "--check-ins", "240", "--renders", "5"]
        )
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("| attendance page, 400 tickets, 240 check-ins | sqlite | 5 | "), "\(result.output)")
        #expect(result.output.contains(" ms | "))
    }

    static func program() throws -> String {
        let runner = try #require(Bundle.main.executableURL, "cannot locate the test runner")
        let binary = runner.deletingLastPathComponent().appendingPathComponent("pass-server-bench").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build pass-server-bench first: \(binary)")
        return binary
    }
}

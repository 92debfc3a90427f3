import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

/// `make run` (`pass-server serve --development`) and admin tokens, on the real binary.
@Suite("Development start: admin tokens", .offCooperativePool, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct DevelopmentStartTests {
    /// Starts `serve --development` in `directory`, waits until it listens and its standard output
    /// says something, stops it, and returns what it printed.
    static func start(in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let (server, status) = try await ServerProcess.runDevelopment(in: directory, environment: ["LOG_LEVEL": "info"]) { !$0.standardOutput.isEmpty }
        #expect(status == 0, "\(server.standardError.suffix(2_000))", sourceLocation: sourceLocation)
        return server.standardOutput
    }

    @Test("the first start prints a token; a second start prints the exact command that mints another")
    func secondStartPrintsTheCommand() async throws {
        let directory = URL(fileURLWithPath: try TestCertificates.temporaryDirectory(prefix: "devstart"))
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try PassServerExecutable.run(["certs", "dev", "--dir", "Certificates/dev"], currentDirectory: directory)
        try #require(certificates.status == 0, "\(certificates.standardError)")

        let first = try await Self.start(in: directory)
        #expect(first.contains("Development admin token"))
        #expect(first.contains("psa_"))

        let second = try await Self.start(in: directory)
        #expect(!second.contains("psa_"), "a token is shown once")
        let command = "swift run pass-server token create --name NAME --role admin"
        #expect(second.contains("Mint another with:\n  \(command)\n"), "\(second)")

        // The printed command (through the built binary instead of `swift run`) works on that database.
        let arguments = command.split(separator: " ").dropFirst(3).map { $0 == "NAME" ? "second-admin" : String($0) }
        let minted = try PassServerExecutable.run(arguments, currentDirectory: directory)
        #expect(minted.status == 0, "\(minted.standardError)")
        #expect(minted.standardOutput.hasPrefix("psa_"))
    }
}

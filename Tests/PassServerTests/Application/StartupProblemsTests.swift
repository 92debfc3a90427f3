import FakeAPNs
import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

/// `pass-server serve` as an operator meets a broken start: every independent problem at once,
/// each with the setting to change and a hint, exit 64, and nothing a person cannot act on.
@Suite("Start-up problems: reported together, each with a hint (the real executable)", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct StartupProblemsTests {
    /// What an operator should never see: Swift type names and Foundation's error dumps.
    static let internals = [
        "StorageError", "PGError", "SQLiteError", "HTTPServerError", "CertificateError", "ConfigurationError", "StartupError",
        "NSPOSIXErrorDomain", "Error Domain=", "POSIXError",
    ]

    @Test("a key that is not the certificate's, an unreachable database and a port in use: all three named, exit 64")
    func threeProblemsAtOnce() throws {
        let scene = try Scene()
        defer { scene.remove() }
        var environment = scene.environment
        environment["DATABASE_URL"] = "postgres://passserver@127.0.0.1:1/none"
        environment["PASS_PRIVATE_KEY"] = scene.certificates.serverKey

        let result = try PassServerExecutable.run(["serve"], environment: environment)
        #expect(result.status == 64, "\(result.standardError)")
        Self.expectProblems(result.standardError, [
            ("PASS_CERTIFICATE: the private key does not belong to the certificate", "hint: set PASS_PRIVATE_KEY to the key"),
            ("DATABASE_URL: could not connect to PostgreSQL", "hint: start the database server or correct DATABASE_URL"),
            ("HTTP_PORT: 127.0.0.1:\(scene.port) is in use by another process", "hint: stop the process listening there"),
        ])
        #expect(!result.standardError.contains(": listening"))
    }

    @Test("a wrong WWDR certificate; then an unreadable key file and a database that cannot be made: each named with a hint")
    func unreadableFileAndWrongWWDR() throws {
        let scene = try Scene()
        defer { scene.remove() }
        let portInUse = ("HTTP_PORT: 127.0.0.1:\(scene.port) is in use", "hint: stop the process listening there")

        // The root CA as WWDR: it did not issue the pass certificate.
        var environment = scene.environment
        environment["WWDR_CERTIFICATE"] = scene.certificates.rootCertificate
        let wrongWWDR = try PassServerExecutable.run(["serve"], environment: environment)
        #expect(wrongWWDR.status == 64, "\(wrongWWDR.standardError)")
        Self.expectProblems(wrongWWDR.standardError, [
            ("WWDR_CERTIFICATE: WWDR intermediate", "hint: set WWDR_CERTIFICATE to the Apple WWDR intermediate"), portInUse,
        ])

        // A key file that does not exist; an SQLite file that cannot be made under a regular file.
        let blocker = scene.directory + "/not-a-directory"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        environment = scene.environment
        environment["PASS_PRIVATE_KEY"] = scene.directory + "/missing-key.pem"
        environment["DATABASE_URL"] = "sqlite://\(blocker)/db.sqlite"
        let unreadable = try PassServerExecutable.run(["serve"], environment: environment)
        #expect(unreadable.status == 64, "\(unreadable.standardError)")
        Self.expectProblems(unreadable.standardError, [
            ("PASS_PRIVATE_KEY: cannot read '\(scene.directory)/missing-key.pem'", "hint: check that the file exists and this user may read it"),
            ("DATABASE_URL: ", "hint: start the database server or correct DATABASE_URL"),
            portInUse,
        ])
    }

    /// Throwaway certificates, a working environment for them, and a port the fake APNs holds
    /// (listening on 127.0.0.1) as that environment's HTTP_PORT.
    struct Scene {
        let directory: String
        let certificates: TestCertificates
        let occupant: FakeAPNs
        var port: UInt16 { occupant.port }
        var environment: [String: String] {
            var environment = ServerProcess.environment(certificates: certificates, databaseURL: "sqlite://\(directory)/db.sqlite")
            environment["HTTP_PORT"] = String(port)
            return environment
        }

        init() throws {
            directory = try TestCertificates.temporaryDirectory(prefix: "startup-problems")
            certificates = try TestCertificates.make(in: directory)
            occupant = try FakeAPNs(configuration: FakeAPNs.Configuration(
                certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey, clientCAPath: nil
            ))
        }

        func remove() {
            occupant.shutdown()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Each problem is one `  - SETTING: …` line followed by its `    hint: …` line; the count is
    /// stated, and nothing internal leaks.
    static func expectProblems(
        _ output: String, _ expected: [(problem: String, hint: String)], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(output.contains("serve cannot start (\(expected.count) problems):"), "\(output)", sourceLocation: sourceLocation)
        let lines = output.split(separator: "\n").map(String.init)
        for (problem, hint) in expected {
            let index = lines.firstIndex { $0.hasPrefix("  - ") && $0.contains(problem) }
            #expect(index != nil, "no line with \(problem) in:\n\(output)", sourceLocation: sourceLocation)
            if let index {
                #expect(lines.indices.contains(index + 1) && lines[index + 1].hasPrefix("    \(hint)"), "\(output)", sourceLocation: sourceLocation)
            }
        }
        #expect(lines.filter { $0.hasPrefix("    hint: ") }.count == expected.count, "\(output)", sourceLocation: sourceLocation)
        for word in internals {
            #expect(!output.contains(word), "\(word) in:\n\(output)", sourceLocation: sourceLocation)
        }
    }
}

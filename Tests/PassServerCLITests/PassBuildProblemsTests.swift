import Foundation
import PassServerTesting
import Testing

/// What `pass-server pass build` tells a user whose input is off, run as the real binary.
@Suite("pass-server pass build: problems are named clearly (the real executable)", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct PassBuildProblemsTests {
    static let goodAttendee = #"""
        {"serialNumber": "CLI-2", "eventName": "Swift Night", "venue": "Hall 1", "attendeeName": "Grace Hopper",
         "startsAt": "2027-05-01T19:30:00+09:00", "timeZone": "Asia/Tokyo"}
        """#

    /// A directory with the test certificates and an attendee file holding `attendee`.
    private struct Workspace {
        let directory: String
        let certificates: TestCertificates
        var attendee: String { directory + "/attendee.json" }
        var out: String { directory + "/ticket.pkpass" }
        var signing: [String: String] {
            [
                "PASS_CERTIFICATE": certificates.passCertificate, "PASS_PRIVATE_KEY": certificates.passKey,
                "WWDR_CERTIFICATE": certificates.wwdrCertificate, "PUBLIC_URL": "https://passes.example.test",
                "ORGANIZATION_NAME": "Example Events",
            ]
        }

        init(attendee: String) throws {
            directory = try TestCertificates.temporaryDirectory(prefix: "passbuild-problems")
            certificates = try TestCertificates.make(in: directory + "/certs")
            try Data(attendee.utf8).write(to: URL(fileURLWithPath: directory + "/attendee.json"))
        }

        func build(_ extra: [String] = [], environment: [String: String], in directory: String? = nil) throws -> PassServerExecutable.Result {
            try PassServerExecutable.run(
                ["pass", "build", "--template", "event-ticket", "--data", attendee, "--out", out] + extra,
                environment: environment, currentDirectory: directory.map { URL(fileURLWithPath: $0) }
            )
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test("without ORGANIZATION_NAME the attendee file must name the organization")
    func organizationNameNeeded() throws {
        let workspace = try Workspace(attendee: Self.goodAttendee)
        defer { workspace.remove() }
        var environment = workspace.signing
        environment["ORGANIZATION_NAME"] = nil
        let result = try workspace.build(environment: environment)
        #expect(result.status == 64, "stderr: \(result.standardError)")
        #expect(result.standardError.contains("organizationName: required here or as ORGANIZATION_NAME"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: workspace.out))
        #expect(try workspace.build(environment: workspace.signing).status == 0)
    }

    @Test("every problem of the attendee file is listed with its key, and nothing is written")
    func everyAttendeeProblemAtOnce() throws {
        let workspace = try Workspace(attendee: #"""
            {"serialNumber": 7, "venue": "Hall 1", "attendeeName": "  ", "startsAt": "tomorrow",
             "timeZone": "Mars/Olympus", "voided": "yes", "Seat": "C-3"}
            """#)
        defer { workspace.remove() }
        let result = try workspace.build(environment: workspace.signing)
        #expect(result.status == 64, "stderr: \(result.standardError)")
        let expected = [
            "has 7 problems:",
            "  - serialNumber: must be a string, not a number",
            "  - eventName: required",
            "  - attendeeName: must not be empty",
            #"  - startsAt: must be an ISO 8601 date-time with a zone offset such as 2027-05-01T19:30:00+09:00, not "tomorrow""#,
            #"  - timeZone: unknown time zone "Mars/Olympus""#,
            "  - voided: must be true or false, not a string",
            "  - Seat: unknown key (did you mean seat?)",
        ]
        for line in expected {
            #expect(result.standardError.contains(line), "missing \(line) in: \(result.standardError)")
        }
        #expect(!result.standardError.contains("DecodingError"))
        #expect(!FileManager.default.fileExists(atPath: workspace.out))
    }

    @Test("a file that is not JSON is reported with the line and column where it breaks")
    func brokenJSON() throws {
        let workspace = try Workspace(attendee: "{\"serialNumber\": \"CLI-2\",\n  \"venue\": \"Hall 1\",, }")
        defer { workspace.remove() }
        let result = try workspace.build(environment: workspace.signing)
        #expect(result.status == 64)
        #expect(result.standardError.contains("(file): not valid JSON: unexpected text at line 2, column 21"), "\(result.standardError)")

        try Data("[1, 2]".utf8).write(to: URL(fileURLWithPath: workspace.attendee))
        let array = try workspace.build(environment: workspace.signing)
        #expect(array.status == 64)
        #expect(array.standardError.contains("(file): must be one JSON object"), "\(array.standardError)")
    }

    @Test("outside the repository, a missing templates directory is named before any certificate is made")
    func missingTemplatesDirectory() throws {
        let workspace = try Workspace(attendee: Self.goodAttendee)
        defer { workspace.remove() }
        let elsewhere = workspace.directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)

        let result = try workspace.build(["--development"], environment: [:], in: elsewhere)
        #expect(result.status == 64)
        #expect(result.standardError.contains("templates directory 'Passes' not found"), "\(result.standardError)")
        #expect(result.standardError.contains("PASSES_DIR (--passes-dir)"))
        #expect(!FileManager.default.fileExists(atPath: elsewhere + "/Certificates"), "no development CA is left behind")

        // The same command with the templates named works from there, development certificates and all.
        let templates = PassServerExecutable.packageRoot.appendingPathComponent("Passes").path
        let built = try workspace.build(["--development", "--passes-dir", templates], environment: [:], in: elsewhere)
        #expect(built.status == 0, "stderr: \(built.standardError)")
        #expect(FileManager.default.fileExists(atPath: workspace.out))
        #expect(built.standardError.contains("using development certificates"))
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/Certificates/dev/pass-certificate.pem"))
    }

    @Test("an unknown template name lists the templates there")
    func unknownTemplate() throws {
        let workspace = try Workspace(attendee: Self.goodAttendee)
        defer { workspace.remove() }
        let result = try PassServerExecutable.run(
            ["pass", "build", "--template", "concert", "--data", workspace.attendee, "--out", workspace.out],
            environment: workspace.signing
        )
        #expect(result.status == 64)
        #expect(result.standardError.contains("no template 'concert' in Passes (templates there: event-ticket)"), "\(result.standardError)")
    }

    @Test("without signing settings the error points at --development")
    func signingNotConfigured() throws {
        let workspace = try Workspace(attendee: Self.goodAttendee)
        defer { workspace.remove() }
        let result = try workspace.build(environment: [:])
        #expect(result.status == 64)
        #expect(result.standardError.contains("PASS_CERTIFICATE: required"))
        #expect(result.standardError.contains("add --development"), "\(result.standardError)")
    }

    @Test("the server signs with .p12 files exported by openssl with and without -legacy", arguments: [true, false])
    func p12Exports(legacy: Bool) throws {
        let workspace = try Workspace(attendee: Self.goodAttendee)
        defer { workspace.remove() }
        let p12 = workspace.directory + "/exported.p12"
        let export = try run("openssl", ["pkcs12", "-export"] + (legacy ? ["-legacy"] : []) + [
            "-in", workspace.certificates.passCertificate, "-inkey", workspace.certificates.passKey,
            "-passout", "pass:exported", "-out", p12,
        ])
        try #require(export.status == 0, "\(export.error)")
        let info = try run("openssl", ["pkcs12", "-in", p12, "-info", "-noout", "-passin", "pass:exported", "-legacy"])
        #expect(info.error.contains(legacy ? "RC2" : "AES-256-CBC"), "\(info.error)")

        let result = try workspace.build(environment: [
            "PASS_P12": p12, "PASS_P12_PASSWORD": "exported",
            "WWDR_CERTIFICATE": workspace.certificates.wwdrCertificate, "PUBLIC_URL": "https://passes.example.test",
            "ORGANIZATION_NAME": "Example Events",
        ])
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(FileManager.default.fileExists(atPath: workspace.out))
    }
}

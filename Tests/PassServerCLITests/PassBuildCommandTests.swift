import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@Suite("pass-server pass build (the real executable)", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct PassBuildCommandTests {
    /// Builds one ticket with the binary in the given time zone and returns the archive's path.
    private func build(
        timeZone: String, certificates: TestCertificates, directory: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let attendee = directory + "/attendee.json"
        try Data(#"""
            {"serialNumber": "CLI-1", "eventName": "Swift Night", "venue": "Hall 1", "attendeeName": "Grace Hopper",
             "startsAt": "2027-05-01T19:30:00+09:00", "timeZone": "Asia/Tokyo", "seat": "C-3"}
            """#.utf8).write(to: URL(fileURLWithPath: attendee))
        let out = directory + "/ticket-\(timeZone.replacingOccurrences(of: "/", with: "-")).pkpass"
        let result = try PassServerExecutable.run(
            ["pass", "build", "--template", "event-ticket", "--data", attendee, "--out", out],
            environment: [
                "TZ": timeZone,
                "PASS_CERTIFICATE": certificates.passCertificate, "PASS_PRIVATE_KEY": certificates.passKey,
                "WWDR_CERTIFICATE": certificates.wwdrCertificate, "PUBLIC_URL": "https://passes.example.test",
                "ORGANIZATION_NAME": "Example Events",
            ]
        )
        #expect(result.status == 0, "pass build failed: \(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.contains(out), "\(result.standardOutput)", sourceLocation: sourceLocation)
        return out
    }

    @Test("writes a signed ticket that openssl verifies, with the attendee's data")
    func signedTicket() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passbuild")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try TestCertificates.make(in: directory)
        let archive = try build(timeZone: "UTC", certificates: certificates, directory: directory)
        let files = try PassArchive.files(Array(try Data(contentsOf: URL(fileURLWithPath: archive))))
        let pass = String(decoding: try #require(files["pass.json"]), as: UTF8.self)
        #expect(pass.contains("Grace Hopper"))
        #expect(pass.contains("CLI-1"))
        #expect(pass.contains("https://passes.example.test"))
        #expect(pass.contains("Example Events"))

        let unpacked = directory + "/unpacked"
        try FileManager.default.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
        for name in ["signature", "manifest.json"] {
            try Data(try #require(files[name])).write(to: URL(fileURLWithPath: unpacked + "/" + name))
        }
        let verification = try run("openssl", [
            "smime", "-verify", "-binary", "-inform", "DER", "-in", unpacked + "/signature", "-content", unpacked + "/manifest.json",
            "-CAfile", certificates.rootCertificate, "-purpose", "any", "-out", "/dev/null",
        ])
        #expect(verification.status == 0, "openssl smime -verify: \(verification.error)")
    }

    @Test("every entry's zip date is 2020-01-01 12:00:00 whatever the server's time zone")
    func timestampsIgnoreTimeZone() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passbuild-tz")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try TestCertificates.make(in: directory)
        for timeZone in ["UTC", "Asia/Tokyo", "America/Los_Angeles"] {
            let archive = try build(timeZone: timeZone, certificates: certificates, directory: directory)
            let details = try run("unzip", ["-Z", "-v", archive])
            let dates = details.output.split(separator: "\n").filter { $0.contains("file last modified on (DOS date/time)") }
            let entries = try PassArchive.files(Array(try Data(contentsOf: URL(fileURLWithPath: archive)))).count
            #expect(dates.count == entries && entries > 3, "\(timeZone): \(dates.count) dates for \(entries) files")
            #expect(dates.allSatisfy { $0.hasSuffix("2020 Jan 1 12:00:00") }, "\(timeZone): \(Set(dates))")
        }
    }
}

import Foundation
import PassServerTesting
import Storage
import Testing

@Suite("pass-server revision", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct RevisionCommandTests {
    /// A temporary SQLite database holding one pass, so the counter starts above zero.
    private func database() throws -> (directory: String, url: String) {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passserver-revision")
        let url = "sqlite://\(directory)/pass-server.sqlite"
        let store = try openStore(url: url)
        defer { store.close() }
        try store.migrate()
        _ = try store.withSession(.write) {
            try $0.passes.insertPass(NewPass(
                passTypeIdentifier: "pass.com.example.ticket", serialNumber: "S1", authenticationTokenHash: [1], downloadTokenHash: [2],
                eventID: nil, attendeeName: "Ada", attendeeEmail: nil, seat: nil
            ), now: Date())
        }
        return (directory, url)
    }

    @Test("show prints the counter; advance --by 5 prints before and after and raises it by 5")
    func showAndAdvance() throws {
        let (directory, url) = try database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["DATABASE_URL": url]

        let shown = try PassServerExecutable.run(["revision", "show"], environment: environment)
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.standardOutput == "1\n")

        let advanced = try PassServerExecutable.run(["revision", "advance", "--by", "5"], environment: environment)
        #expect(advanced.status == 0, "\(advanced.standardError)")
        #expect(advanced.standardOutput == "revision counter advanced from 1 to 6\n")

        // --database-url works as well as DATABASE_URL.
        let again = try PassServerExecutable.run(["revision", "show", "--database-url", url])
        #expect(again.standardOutput == "6\n")
        let store = try openStore(url: url)
        defer { store.close() }
        #expect(try store.withSession(.read) { try $0.revisions.currentRevision() } == 6)
    }

    @Test("--by must be a positive whole number: 0, abc, -3 and a missing --by exit 64 and change nothing")
    func badAmounts() throws {
        let (directory, url) = try database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["DATABASE_URL": url]
        for arguments in [["--by", "0"], ["--by", "abc"], ["--by", "-3"], ["--by=1.5"], []] {
            let result = try PassServerExecutable.run(["revision", "advance"] + arguments, environment: environment)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardError.contains("--by"), "\(arguments): \(result.standardError)")
            #expect(result.standardOutput.isEmpty, "\(arguments)")
        }
        let shown = try PassServerExecutable.run(["revision", "show"], environment: environment)
        #expect(shown.standardOutput == "1\n")
    }

    @Test("revision and its subcommands have --help")
    func help() throws {
        for path in [["revision"], ["revision", "show"], ["revision", "advance"]] {
            let result = try PassServerExecutable.run(path + ["--help"])
            #expect(result.status == 0, "\(path)")
            #expect(result.standardOutput.contains("Usage: pass-server \(path.joined(separator: " "))"), "\(path)")
        }
        let top = try PassServerExecutable.run(["--help"])
        #expect(top.standardOutput.contains("revision"))
    }
}

import Foundation
import PassServerTesting
import Testing

/// Tools that work on an existing database name a mistyped SQLite path instead of creating an
/// empty database there; only `serve` and `migrate` create one.
@Suite("Commands given a missing SQLite database (the real executable)", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct MissingDatabaseTests {
    @Test("token list, prune, revision show and repush refuse a missing file and create nothing; migrate creates it")
    func onlyMigrateCreates() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "missing-db")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/typo/passes.sqlite"
        let environment = ["DATABASE_URL": "sqlite://\(path)"]
        for command in [["token", "list"], ["prune"], ["revision", "show"], ["repush", "--event", "e1"]] {
            let result = try PassServerExecutable.run(command, environment: environment)
            #expect(result.status == 1, "\(command): \(result.standardError)")
            #expect(
                result.standardError.contains("DATABASE_URL: the SQLite database \(path) does not exist; `pass-server migrate` creates it"),
                "\(command): \(result.standardError)"
            )
            #expect(!result.standardError.contains("StorageError"), "\(command): \(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(command) created the database")
            #expect(!FileManager.default.fileExists(atPath: directory + "/typo"), "\(command) created the directory")
        }

        let migrate = try PassServerExecutable.run(["migrate"], environment: environment)
        #expect(migrate.status == 0, "\(migrate.standardError)")
        #expect(FileManager.default.fileExists(atPath: path))
        let list = try PassServerExecutable.run(["token", "list"], environment: environment)
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput.contains("no admin tokens"))
    }
}

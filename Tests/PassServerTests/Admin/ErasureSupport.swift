import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import SystemSupport
import Testing

@testable import PassServer

/// Reading a test database the way an auditor would: every byte of it.
enum DatabaseDump {
    /// The whole database as text or bytes: `pg_dump` of the test database on PostgreSQL; on
    /// SQLite, after a checkpoint, the bytes of the database file and of its write-ahead log.
    static func bytes(_ app: TestApp, _ backend: Backend) throws -> [UInt8] {
        switch backend {
        case .postgres:
            return try run("/usr/bin/pg_dump", [app.databaseURL])
        case .sqlite:
            _ = try app.store.execute(SQLQuery(unsafeRaw: "PRAGMA wal_checkpoint(TRUNCATE)"))
            let path = String(app.databaseURL.dropFirst("sqlite://".count))
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            if let wal = FileManager.default.contents(atPath: path + "-wal") { bytes += Array(wal) }
            return bytes
        }
    }

    /// The texts of `needles` found in `haystack` (each as given and lowercased, as search texts
    /// keep it).
    static func found(_ needles: [String], in haystack: [UInt8]) -> [String] {
        needles.filter { needle in
            [needle, needle.lowercased()].contains { contains(haystack, Array($0.utf8)) }
        }
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= haystack.count else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first && haystack[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    private static func run(_ program: String, _ arguments: [String]) throws -> [UInt8] {
        let process = try ChildProcess(program, arguments, standardOutput: .pipe, standardError: .pipe)
        let (output, _) = try process.readToEnd()
        guard process.terminationStatus == 0 else {
            throw TestClient.Failure(description: "\(program) exited with \(process.terminationStatus)")
        }
        return output
    }
}

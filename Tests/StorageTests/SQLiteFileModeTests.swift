import Foundation
import PassServerTesting
import Testing

@testable import Storage

/// The SQLite database and its -wal and -shm files are private to the server's user.
@Suite(.offCooperativePool) struct SQLiteFileModeTests {
    static func mode(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode) & 0o777
    }

    @Test func aNewDatabaseAndItsJournalFilesAre0600() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "sqlite-modes")
        let path = "\(directory)/nested/pass-server.sqlite"
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        try store.migrate()
        for file in [path, path + "-wal", path + "-shm"] {
            let mode = Self.mode(file)
            #expect(mode == 0o600, "\(file): \(mode.map { String($0, radix: 8) } ?? "missing")")
        }
    }

    @Test func anExistingDatabaseKeepsItsModeAndContent() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "sqlite-modes")
        let path = "\(directory)/existing.sqlite"
        do {
            let store = try SQLiteStore(path: path)
            try store.migrate()
            store.close()
        }
        #expect(chmod(path, 0o640) == 0)
        let reopened = try SQLiteStore(path: path)
        defer { reopened.close() }
        try reopened.migrate()
        #expect(Self.mode(path) == 0o640, "an operator's choice is left alone")
    }
}

import Foundation
import PassServerTesting
import Testing

@testable import Storage

/// Driver errors map to the codes callers act on: the database being away or busy is transient
/// (`.unavailable`, `.timeout`: servers answer 503 and background work waits); errors about a
/// statement or its values are not.
@Suite("Storage error classification", .offCooperativePool)
struct ErrorClassificationTests {
    @Test(arguments: [
        // Client-side failures (no SQLSTATE) and connection exceptions.
        ("", StorageError.Code.unavailable), ("08006", .unavailable), ("08001", .unavailable), ("08003", .unavailable),
        // Operator intervention: shutdown, crash, starting up / shutting down, idle session timeout.
        ("57P01", .unavailable), ("57P02", .unavailable), ("57P03", .unavailable), ("57P05", .unavailable),
        // Insufficient resources and system errors, a standby after a failover.
        ("53300", .unavailable), ("53100", .unavailable), ("58030", .unavailable), ("25006", .unavailable),
        // statement_timeout and lock_timeout; a lost lock race (deadlock, serialization failure).
        ("57014", .timeout), ("55P03", .timeout), ("40P01", .timeout), ("40001", .timeout),
        // Not the database's state: the statement, its values, or a bug.
        ("23505", .conflict), ("23503", .notFound), ("22P02", .invalidValue), ("22021", .invalidValue),
        ("42P01", .backend), ("42601", .backend), ("40P02", .backend), ("25P02", .backend), ("XX000", .backend),
    ])
    func postgresSQLState(sqlState: String, expected: StorageError.Code) {
        #expect(PGError(sqlState: sqlState, message: "m").storageCode == expected)
    }

    @Test(arguments: [
        // SQLITE_BUSY and its extended forms (RECOVERY, SNAPSHOT, TIMEOUT), SQLITE_LOCKED (+ SHAREDCACHE), PROTOCOL.
        (Int32(5), StorageError.Code.timeout), (261, .timeout), (517, .timeout), (773, .timeout), (6, .timeout), (262, .timeout), (15, .timeout),
        // I/O errors (plain and extended READ/WRITE/FSYNC), disk full, cannot open, out of memory.
        (10, .unavailable), (266, .unavailable), (778, .unavailable), (1034, .unavailable), (13, .unavailable), (14, .unavailable), (7, .unavailable),
        // Constraints.
        (2067, .conflict), (1555, .conflict), (787, .notFound), (1299, .invalidValue), (275, .invalidValue),
        // Bugs and damage: SQL error, corrupt file, not a database, read-only file.
        (1, .backend), (11, .backend), (26, .backend), (8, .backend),
    ])
    func sqliteResultCode(code: Int32, expected: StorageError.Code) {
        #expect(SQLiteError(code: code, message: "m").storageCode == expected)
    }

    @Test func onlyUnavailableAndTimeoutAreTransient() {
        let transient = StorageError.Code.allCases.filter { StorageError($0, "m").isTransient }
        #expect(transient == [.unavailable, .timeout])
    }
}

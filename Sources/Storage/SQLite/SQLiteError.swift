/// An error reported by SQLite: the extended result code and `sqlite3_errmsg` at the failure.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067, `SQLITE_BUSY` is 5, …).
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "SQLiteError(\(code)): \(message)" }

    /// Maps the result code to the code callers act on. Extended codes are matched by their primary
    /// code (the low byte) except for the constraint kinds that matter: every `SQLITE_BUSY_*` is a
    /// lock held elsewhere beyond `busy_timeout`, every `SQLITE_IOERR_*` an I/O failure.
    var storageCode: StorageError.Code {
        switch code {
        case 2067, 1555: return .conflict // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
        case 787: return .notFound // SQLITE_CONSTRAINT_FOREIGNKEY
        default: break
        }
        switch code & 0xff {
        case 5, 6, 15: return .timeout // BUSY, LOCKED, PROTOCOL (a lock race on the WAL index)
        case 7, 10, 13, 14: return .unavailable // NOMEM, IOERR, FULL, CANTOPEN
        case 19: return .invalidValue // other constraints (NOT NULL, CHECK)
        default: return .backend
        }
    }
}

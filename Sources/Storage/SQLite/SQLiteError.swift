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

    /// Maps the result code to the code callers act on.
    var storageCode: StorageError.Code {
        switch code {
        case 2067, 1555: return .conflict // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
        case 787: return .notFound // SQLITE_CONSTRAINT_FOREIGNKEY
        case 5, 6, 261, 517: return .timeout // SQLITE_BUSY, SQLITE_LOCKED and extended forms
        case 14, 10, 13: return .unavailable // CANTOPEN, IOERR, FULL
        default: return code & 0xff == 19 ? .invalidValue : .backend
        }
    }
}

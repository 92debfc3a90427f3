/// An error reported by libpq or the PostgreSQL server.
///
/// `sqlState` is the five-character SQLSTATE (empty for client-side failures such as a refused
/// connection); `message` is the server's primary message, which never echoes bound values for the
/// errors this module maps (constraint names and SQLSTATEs only).
public struct PGError: Error, Sendable, CustomStringConvertible {
    public var sqlState: String
    public var message: String

    public init(sqlState: String, message: String) {
        self.sqlState = sqlState
        self.message = message
    }

    public var description: String {
        sqlState.isEmpty ? "PGError: \(message)" : "PGError(\(sqlState)): \(message)"
    }

    /// Maps a SQLSTATE to the code callers act on. The server being down, restarting, failing
    /// over or out of resources is `.unavailable`, and a cancelled or lock-waiting statement or a
    /// transaction that lost a lock race (deadlock, serialization failure) is `.timeout` (both
    /// transient); errors about the statement or its values are not.
    var storageCode: StorageError.Code {
        switch sqlState {
        case "23505": return .conflict
        case "23503": return .notFound
        case "57014", "55P03": return .timeout // statement_timeout, lock_not_available
        // deadlock_detected, serialization_failure: the transaction lost a race for locks with
        // another one; sent again, it goes through (as a SQLite writer that found the lock taken).
        case "40P01", "40001": return .timeout
        case "25006": return .unavailable // read-only transaction: a standby after a failover
        case "22021", "22P05": return .invalidValue
        default:
            switch sqlState.prefix(2) {
            // Client-side (no SQLSTATE), connection exceptions, operator intervention (shutdown,
            // crash, "cannot connect now", idle session timeout), insufficient resources (disk
            // full, out of memory, too many connections), system errors (I/O).
            case "", "08", "57", "53", "58": return .unavailable
            case "22": return .invalidValue
            default: return .backend
            }
        }
    }
}

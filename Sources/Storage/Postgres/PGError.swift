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

    /// Maps a SQLSTATE class to the code callers act on.
    var storageCode: StorageError.Code {
        switch sqlState {
        case "23505": return .conflict
        case "23503": return .notFound
        case "57014": return .timeout
        case "55P03": return .timeout
        case "57P01", "57P02", "57P03": return .unavailable
        case "22021", "22P05": return .invalidValue
        default:
            if sqlState.hasPrefix("08") || sqlState.isEmpty { return .unavailable }
            if sqlState.hasPrefix("22") { return .invalidValue }
            return .backend
        }
    }
}

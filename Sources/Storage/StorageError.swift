/// The one error type of the `Storage` module.
///
/// `code` says what a caller can do about it (`unavailable` is worth retrying, `conflict` is a
/// duplicate key, …); `message` is for humans and never contains bound SQL values; `underlying`
/// keeps the driver's own error (`PGError`, `SQLiteError`) for logs.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in terms a caller can act on.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// The database could not be reached or the connection was lost; retrying later may work.
        case unavailable
        /// A statement or a wait for a pooled connection took too long.
        case timeout
        /// A unique constraint was violated (the row already exists).
        case conflict
        /// The row to change does not exist (or a referenced row is missing).
        case notFound
        /// A value cannot be stored as given (for example a string containing NUL).
        case invalidValue
        /// A schema migration failed; the schema is left as it was before that migration.
        case migrationFailed
        /// Any other database error.
        case backend
    }

    public var code: Code
    public var message: String
    /// The driver error that caused this one, if any.
    public var underlying: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// Whether the database itself is the problem right now (down, restarting, overloaded, busy)
    /// rather than the request or the code: the same call may succeed later, so servers answer 503
    /// and background work waits and retries instead of giving up.
    public var isTransient: Bool { code == .unavailable || code == .timeout }

    /// The message and the driver's, each its first line, for people and logs: no type names.
    public var reason: String {
        let driver: String? = switch underlying {
        case let error as PGError: error.message
        case let error as SQLiteError: error.message
        case let error as StorageError: error.reason
        default: nil
        }
        let lines = [message] + (driver.map { [$0] } ?? [])
        return lines.compactMap { $0.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } }.joined(separator: ": ")
    }

    public var description: String {
        if let underlying {
            return "StorageError(\(code.rawValue)): \(message) [\(underlying)]"
        }
        return "StorageError(\(code.rawValue)): \(message)"
    }
}

import Foundation

/// One value sent to or read from the database. Every value in a query travels as a bind
/// parameter of one of these kinds; none is ever spliced into SQL text.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    /// UTF-8 text without NUL characters (checked when the query is rendered).
    case text(String)
    /// Raw bytes: `bytea` on PostgreSQL, `BLOB` on SQLite.
    case bytes([UInt8])
}

/// A Swift value that can be bound as a query parameter.
public protocol SQLBindable: Sendable {
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}

extension String: SQLBindable {
    public var sqlValue: SQLValue { .text(self) }
}

extension Substring: SQLBindable {
    public var sqlValue: SQLValue { .text(String(self)) }
}

extension Int: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int64: SQLBindable {
    public var sqlValue: SQLValue { .integer(self) }
}

extension Int32: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Double: SQLBindable {
    public var sqlValue: SQLValue { .real(self) }
}

extension Bool: SQLBindable {
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
}

extension Array: SQLBindable where Element == UInt8 {
    public var sqlValue: SQLValue { .bytes(self) }
}

extension Date {
    /// Milliseconds since 1970: how every `*_at` column except `modified_at` stores time.
    var storageMillis: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Whole seconds since 1970 (the `modified_at` unit).
    var storageSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }

    init(storageMillis: Int64) {
        self.init(timeIntervalSince1970: Double(storageMillis) / 1000)
    }
}

public import Foundation

/// One result row: column names and values, read by name.
public struct SQLRow: Sendable {
    let columns: [String]
    let values: [SQLValue]

    init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The raw value of a column, or `nil` if the row has no such column.
    public subscript(column: String) -> SQLValue? {
        guard let index = columns.firstIndex(of: column) else { return nil }
        return values[index]
    }

    /// The first `count` columns, as a row of their own (a join's first table).
    func columns(upTo count: Int) -> SQLRow {
        SQLRow(columns: Array(columns.prefix(count)), values: Array(values.prefix(count)))
    }

    /// The columns from `index` on, as a row of their own (a join's later table, whose column
    /// names may repeat the first one's).
    func columns(from index: Int) -> SQLRow {
        SQLRow(columns: Array(columns.dropFirst(index)), values: Array(values.dropFirst(index)))
    }

    private func value(_ column: String) throws -> SQLValue {
        guard let value = self[column] else {
            throw StorageError(.backend, "result has no column \(column)")
        }
        return value
    }

    private func mismatch(_ column: String, _ type: String) -> StorageError {
        StorageError(.backend, "column \(column) is not \(type)")
    }

    /// What `read` gives for a column that must not be NULL.
    private func required<Value>(_ column: String, _ type: String, _ read: (String) throws -> Value?) throws -> Value {
        guard let value = try read(column) else { throw mismatch(column, type) }
        return value
    }

    /// An integer column (PostgreSQL numbers arrive typed; text holding digits is accepted too).
    public func int64(_ column: String) throws -> Int64 {
        try required(column, "a non-null integer", optionalInt64)
    }

    /// An integer column that may be NULL.
    public func optionalInt64(_ column: String) throws -> Int64? {
        switch try value(column) {
        case .null: return nil
        case .integer(let value): return value
        case .real(let value): return Int64(exactly: value.rounded(.down))
        case .text(let text):
            guard let value = Int64(text) else { throw mismatch(column, "an integer") }
            return value
        case .bytes: throw mismatch(column, "an integer")
        }
    }

    /// An integer column as `Int`.
    public func int(_ column: String) throws -> Int { Int(try int64(column)) }

    /// A non-null text column.
    public func string(_ column: String) throws -> String {
        try required(column, "non-null text", optionalString)
    }

    /// A text column that may be NULL.
    public func optionalString(_ column: String) throws -> String? {
        switch try value(column) {
        case .null: return nil
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// A non-null `bytea` / `BLOB` column.
    public func bytes(_ column: String) throws -> [UInt8] {
        try required(column, "non-null bytes", optionalBytes)
    }

    /// A `bytea` / `BLOB` column that may be NULL.
    public func optionalBytes(_ column: String) throws -> [UInt8]? {
        switch try value(column) {
        case .null: return nil
        case .bytes(let bytes): return bytes
        case .text(let text): return Array(text.utf8)
        default: throw mismatch(column, "bytes")
        }
    }

    /// A `*_at` column holding milliseconds since 1970.
    public func date(_ column: String) throws -> Date {
        Date(storageMillis: try int64(column))
    }

    /// A `*_at` column (milliseconds since 1970) that may be NULL.
    public func optionalDate(_ column: String) throws -> Date? {
        try optionalInt64(column).map(Date.init(storageMillis:))
    }
}

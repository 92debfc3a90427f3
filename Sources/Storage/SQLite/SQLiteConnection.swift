// One SQLite connection in WAL mode. Threading: used by one thread at a time (the writer behind
// a Mutex, readers lent by a small pool); every call blocks that thread.

import CSQLite
import Foundation

/// Binds Swift strings and bytes with a copy (`SQLITE_TRANSIENT` is a cast macro).
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Owns one `sqlite3` handle, closed in `deinit`.
// Safe because each connection is used by one thread at a time (writer Mutex or reader pool).
final class SQLiteConnection: SQLConnection, @unchecked Sendable {
    private let handle: OpaquePointer
    /// Compiled statements by SQL text, reused after `sqlite3_reset`: compiling costs more than
    /// running the point queries a request makes. Finalized on eviction and in `deinit`.
    private var statements = StatementCache<OpaquePointer>(capacity: SQLiteConnection.statementCacheCapacity)
    let dialect = SQLDialect.sqlite

    /// Compiled statements kept per connection.
    static let statementCacheCapacity = 200

    init(path: String, busyTimeoutMilliseconds: Int32) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close(db) }
            throw StorageError(.unavailable, "could not open the SQLite database", underlying: SQLiteError(code: status, message: message))
        }
        handle = db
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        // `secure_delete`: deleted and overwritten content is zeroed in the file, so erased attendee
        // data does not linger in free pages or free space within pages.
        try executeScript("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON;")
    }

    deinit {
        statements.removeAll().forEach { sqlite3_finalize($0) }
        sqlite3_close_v2(handle)
    }

    func executeScript(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        defer { sqlite3_free(errorMessage) }
        guard status == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            throw error(SQLiteError(code: sqlite3_extended_errcode(handle), message: message))
        }
    }

    func query(_ query: SQLQuery) throws -> [SQLRow] {
        let (sql, binds) = try query.render(for: .sqlite)
        let statement = try prepared(sql)
        defer {
            // Ends the statement's read (or write) and drops the bound copies before it waits in
            // the cache; the step's result code was already checked below.
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, bind) in binds.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch bind {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let value): status = sqlite3_bind_int64(statement, index, value)
            case .real(let value): status = sqlite3_bind_double(statement, index, value)
            case .text(let value): status = sqlite3_bind_text(statement, index, value, -1, transient)
            case .bytes(let bytes):
                status = bytes.withUnsafeBytes { buffer in
                    // A non-nil pointer even for zero bytes, so an empty blob is not NULL.
                    sqlite3_bind_blob(statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), transient)
                }
            }
            guard status == SQLITE_OK else { throw lastError() }
        }
        var rows: [SQLRow] = []
        var columnCount: Int32 = 0
        var columns: [String] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw lastError() }
            if rows.isEmpty {
                // Read after the first step: a cached statement is recompiled there when the
                // schema changed since, and `SELECT *` may then have other columns.
                columnCount = sqlite3_column_count(statement)
                columns = (0..<columnCount).map { String(cString: sqlite3_column_name(statement, $0)) }
            }
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if let text = sqlite3_column_text(statement, column) {
                        values.append(.text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)))
                    } else {
                        values.append(.text(""))
                    }
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if let blob = sqlite3_column_blob(statement, column), count > 0 {
                        values.append(.bytes(Array(UnsafeRawBufferPointer(start: blob, count: count))))
                    } else {
                        values.append(.bytes([]))
                    }
                default: values.append(.null)
                }
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    /// The cached statement for `sql`, compiled on first use. Statements run one at a time on a
    /// connection and are reset after each use, so one compiled copy per text is enough.
    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements.handle(for: sql) { return statement }
        var statement: OpaquePointer?
        let flags = UInt32(SQLITE_PREPARE_PERSISTENT)
        guard sqlite3_prepare_v3(handle, sql, -1, flags, &statement, nil) == SQLITE_OK, let statement else {
            let error = lastError()
            sqlite3_finalize(statement)
            throw error
        }
        if let evicted = statements.insert(statement, for: sql) { sqlite3_finalize(evicted) }
        return statement
    }

    private func lastError() -> StorageError {
        error(SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle))))
    }

    private func error(_ error: SQLiteError) -> StorageError {
        let code = error.storageCode
        let summary = switch code {
        case .conflict: "row already exists"
        case .notFound: "referenced row does not exist"
        case .timeout: "SQLite database is busy"
        case .unavailable: "SQLite database is unavailable"
        case .invalidValue: "value rejected by SQLite"
        default: "SQLite error"
        }
        return StorageError(code, summary, underlying: error)
    }
}

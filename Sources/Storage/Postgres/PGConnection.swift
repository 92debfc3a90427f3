// One libpq connection. Threading: a connection is used by one thread at a time (the pool hands
// it to one borrower); every call blocks that thread until the server answers, so callers run on
// HTTP engine threads or dedicated threads, never on Swift's cooperative pool.

import CPostgres
import Foundation

/// Swallows server NOTICE messages (libpq prints them to stderr otherwise).
private let ignoreNotice: PQnoticeProcessor = { _, _ in }

/// Owns one `PGconn`, freed in `deinit`.
// Safe because the pool gives each connection to exactly one thread at a time.
final class PGConnection: SQLConnection, @unchecked Sendable {
    private let handle: OpaquePointer
    private let statementTimeoutMilliseconds: Int
    /// The pool generation this connection belongs to; older ones are reset before reuse.
    var generation: Int

    let dialect = SQLDialect.postgres

    init(url: String, statementTimeoutMilliseconds: Int, generation: Int) throws {
        // connect_timeout first so that a value in the URL (expanded from dbname) overrides it.
        let keywords = ["connect_timeout", "fallback_application_name", "dbname"]
        let values = ["10", "pass-server", url]
        let cKeywords = keywords.map { strdup($0) }
        let cValues = values.map { strdup($0) }
        defer {
            cKeywords.forEach { free($0) }
            cValues.forEach { free($0) }
        }
        var keywordPointers: [UnsafePointer<CChar>?] = cKeywords.map { UnsafePointer($0) } + [nil]
        var valuePointers: [UnsafePointer<CChar>?] = cValues.map { UnsafePointer($0) } + [nil]
        guard let connection = PQconnectdbParams(&keywordPointers, &valuePointers, 1) else {
            throw StorageError(.unavailable, "could not allocate a PostgreSQL connection")
        }
        handle = connection
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        self.generation = generation
        guard PQstatus(handle) == CONNECTION_OK else {
            let error = PGError(sqlState: "", message: Self.trimmed(PQerrorMessage(handle)))
            throw StorageError(.unavailable, "could not connect to PostgreSQL", underlying: error)
        }
        _ = PQsetNoticeProcessor(handle, ignoreNotice, nil)
        try configure()
    }

    deinit {
        PQfinish(handle)
    }

    private func configure() throws {
        // An integer we own, not a value from outside: safe as raw text.
        try executeScript("SET statement_timeout = \(statementTimeoutMilliseconds)")
    }

    /// Whether libpq still believes the connection is usable.
    var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether an idle connection still looks usable. An idle session expects nothing from the
    /// server (we never LISTEN), so anything readable on its socket means the server said goodbye
    /// (FATAL on shutdown, then EOF): such a connection is reset before use instead of losing the
    /// caller's query to it. `poll` with a zero timeout never waits.
    func probe() -> Bool {
        guard PQstatus(handle) == CONNECTION_OK else { return false }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 0)
        return ready == 0
    }

    /// Whether the session sits outside any transaction.
    var isIdle: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Reconnects with the same parameters (after a server restart).
    func reset() throws {
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            let error = PGError(sqlState: "", message: Self.trimmed(PQerrorMessage(handle)))
            throw StorageError(.unavailable, "could not reconnect to PostgreSQL", underlying: error)
        }
        try configure()
    }

    func executeScript(_ sql: String) throws {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    func query(_ query: SQLQuery) throws -> [SQLRow] {
        let (sql, binds) = try query.render(for: .postgres)
        var types: [Oid] = []
        var values: [UnsafePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var allocations: [UnsafeMutableRawPointer] = []
        defer { allocations.forEach { free($0) } }
        for bind in binds {
            func text(_ string: String, _ oid: Oid) {
                let copy = strdup(string)
                if let copy { allocations.append(UnsafeMutableRawPointer(copy)) }
                values.append(UnsafePointer(copy))
                types.append(oid)
                lengths.append(0)
                formats.append(0)
            }
            switch bind {
            case .null:
                values.append(nil); types.append(0); lengths.append(0); formats.append(0)
            case .integer(let value): text(String(value), 20)
            case .real(let value): text(String(value), 701)
            case .text(let value): text(value, 25)
            case .bytes(let bytes):
                // Binary format: the bytes go as they are, no escaping, NUL and non-UTF-8 included.
                guard let buffer = malloc(max(bytes.count, 1)) else {
                    throw StorageError(.backend, "out of memory binding a parameter")
                }
                allocations.append(buffer)
                bytes.withUnsafeBytes { source in
                    if let base = source.baseAddress { buffer.copyMemory(from: base, byteCount: bytes.count) }
                }
                values.append(UnsafePointer(buffer.assumingMemoryBound(to: CChar.self)))
                types.append(17)
                lengths.append(Int32(bytes.count))
                formats.append(1)
            }
        }
        let result = PQexecParams(handle, sql, Int32(binds.count), types, values, lengths, formats, 0)
        defer { PQclear(result) }
        try check(result)
        guard let result else { return [] }
        return rows(of: result)
    }

    /// Turns a failed result into a `StorageError` carrying the server's SQLSTATE.
    private func check(_ result: OpaquePointer?) throws {
        guard let result else {
            let error = PGError(sqlState: "", message: Self.trimmed(PQerrorMessage(handle)))
            throw StorageError(.unavailable, "PostgreSQL connection failed", underlying: error)
        }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return }
        let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            ?? Self.trimmed(PQerrorMessage(handle))
        let error = PGError(sqlState: sqlState, message: primary)
        let code: StorageError.Code = isConnected ? error.storageCode : .unavailable
        throw StorageError(code, Self.summary(for: code), underlying: error)
    }

    private static func summary(for code: StorageError.Code) -> String {
        switch code {
        case .unavailable: "PostgreSQL is unavailable"
        case .timeout: "PostgreSQL statement timed out"
        case .conflict: "row already exists"
        case .notFound: "referenced row does not exist"
        case .invalidValue: "value rejected by PostgreSQL"
        case .migrationFailed: "migration failed"
        case .backend: "PostgreSQL error"
        }
    }

    private func rows(of result: OpaquePointer) -> [SQLRow] {
        let rowCount = PQntuples(result)
        let fieldCount = PQnfields(result)
        guard rowCount > 0 else { return [] }
        let columns = (0..<fieldCount).map { String(cString: PQfname(result, $0)) }
        let types = (0..<fieldCount).map { PQftype(result, $0) }
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(fieldCount))
            for field in 0..<fieldCount {
                if PQgetisnull(result, row, field) == 1 {
                    values.append(.null)
                    continue
                }
                let text = String(cString: PQgetvalue(result, row, field))
                values.append(Self.decode(text, type: types[Int(field)]))
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    /// Decodes a text-format result value by its type OID.
    private static func decode(_ text: String, type: Oid) -> SQLValue {
        switch type {
        case 20, 21, 23, 26: return Int64(text).map(SQLValue.integer) ?? .text(text)
        case 16: return .integer(text == "t" ? 1 : 0)
        case 700, 701: return Double(text).map(SQLValue.real) ?? .text(text)
        case 17: return .bytes(decodeHex(text))
        default: return .text(text)
        }
    }

    /// Decodes `bytea` hex output (`\x0aff…`).
    private static func decodeHex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8.dropFirst(2))
        bytes.reserveCapacity(utf8.count / 2)
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: c &- UInt8(ascii: "A") &+ 10
            }
        }
        var index = 0
        while index + 1 < utf8.count {
            bytes.append(nibble(utf8[index]) << 4 | nibble(utf8[index + 1]))
            index += 2
        }
        return bytes
    }

    private static func trimmed(_ message: UnsafeMutablePointer<CChar>?) -> String {
        guard let message else { return "unknown libpq error" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

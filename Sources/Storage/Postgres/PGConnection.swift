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
    /// This session's prepared statements by SQL text and parameter kinds. Bounded: a server
    /// runs a few dozen distinct statements, but text built at run time (IN lists) could grow it.
    private var statements = StatementCache<String>(capacity: PGConnection.statementCacheCapacity)
    /// Numbers the statement names, so a name is never reused within a connection.
    private var preparedCount = 0
    /// Statements evicted from the cache, freed on the server once no transaction is open.
    private var retired: [String] = []
    /// Set when a pipeline could not be left in a known state: the connection is not lent again.
    private var broken = false
    /// Round trips to the server so far (a pipeline is one), for tests that hold operations to a
    /// number of them.
    private(set) var roundTrips = 0

    /// Prepared statements kept per connection.
    static let statementCacheCapacity = 200

    let dialect = SQLDialect.postgres
    let pipelines = true

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
    var isConnected: Bool { !broken && PQstatus(handle) == CONNECTION_OK }

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

    /// Whether the session sits outside any transaction (and outside pipeline mode, which
    /// `pipeline` always leaves: a connection still in it is not lent again).
    var isIdle: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE && PQpipelineStatus(handle) == PQ_PIPELINE_OFF }

    /// Reconnects with the same parameters (after a server restart).
    func reset() throws {
        // A new session: the statements prepared on the old one are gone with it.
        _ = statements.removeAll()
        retired.removeAll()
        broken = false
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            let error = PGError(sqlState: "", message: Self.trimmed(PQerrorMessage(handle)))
            throw StorageError(.unavailable, "could not reconnect to PostgreSQL", underlying: error)
        }
        try configure()
    }

    func executeScript(_ sql: String) throws {
        roundTrips += 1
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    func query(_ query: SQLQuery) throws -> [SQLRow] {
        let (sql, binds) = try query.render(for: .postgres)
        let parameters = try PGParameters(binds)
        let result = try executePrepared(sql: sql, parameters: parameters, mayRetry: true)
        defer { PQclear(result) }
        return rows(of: result)
    }

    /// Sends `steps` in one round trip (a libpq pipeline) and returns the rows of the last query
    /// among them: the statements of a transaction whose rows nobody waits for go with the next one
    /// whose rows are needed, or with the COMMIT, instead of a round trip each.
    ///
    /// If a step fails, the server skips every step after it up to the sync point
    /// (`PGRES_PIPELINE_ABORTED`): an open transaction block stays open and failed, as after a
    /// failed `query`, for the caller to roll back; a failed COMMIT has ended the block. The first
    /// failure is thrown as `query` would throw it, after the connection has left pipeline mode; a
    /// connection lost mid-pipeline is `.unavailable`. One step alone is an ordinary call.
    func pipeline(_ steps: [PipelineStep]) throws -> [SQLRow] {
        if steps.count == 1 {
            switch steps[0] {
            case .query(let query): return try self.query(query)
            case .control(let sql):
                try executeScript(sql)
                return []
            }
        }
        // Statements are prepared outside the pipeline (a synchronous round trip, once per
        // connection and statement).
        let ready: [ReadyStep] = try steps.map { step in
            switch step {
            case .control(let sql): return .control(sql)
            case .query(let query):
                let (sql, binds) = try query.render(for: .postgres)
                let parameters = try PGParameters(binds)
                let (key, name) = try prepared(sql: sql, parameters: parameters)
                return .prepared(name: name, key: key, parameters: parameters)
            }
        }
        roundTrips += 1
        let results = try pipeline(count: ready.count) { handle in
            ready.allSatisfy { step in
                switch step {
                case .control(let sql):
                    PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0) == 1
                case .prepared(let name, _, let parameters):
                    parameters.withValues { values in
                        PQsendQueryPrepared(handle, name, parameters.count, values, parameters.lengths, parameters.formats, 0)
                    } == 1
                }
            }
        }
        defer { results.forEach { PQclear($0) } }
        // The transaction is lost either way: forget statements that no longer fit the schema.
        for (step, result) in zip(ready, results) {
            if case .prepared(_, let key, _) = step, let result, Self.isStaleStatement(result) { _ = statements.remove(key) }
        }
        for result in results { try check(result) }
        guard let last = ready.lastIndex(where: { if case .prepared = $0 { true } else { false } }) else { return [] }
        guard let result = results[last] else { throw StorageError(.unavailable, "PostgreSQL connection failed") }
        return rows(of: result)
    }

    /// A pipeline step ready to send: a prepared statement with its parameters, or control text.
    private enum ReadyStep {
        case prepared(name: String, key: String, parameters: PGParameters)
        case control(String)
    }

    /// Sends `count` queries (`send` queues them) and a sync point in pipeline mode, reads their
    /// results and leaves pipeline mode. A query's result is nil if none arrived (the connection
    /// broke first); `check` turns that into `.unavailable`.
    private func pipeline(count: Int, _ send: (OpaquePointer) -> Bool) throws -> [OpaquePointer?] {
        guard PQenterPipelineMode(handle) == 1 else {
            let error = PGError(sqlState: "", message: Self.trimmed(PQerrorMessage(handle)))
            throw StorageError(.unavailable, "PostgreSQL connection failed", underlying: error)
        }
        guard send(handle), PQpipelineSync(handle) == 1 else {
            // Part of the pipeline may be on its way: the session's state is unknown.
            let error = PGError(sqlState: "", message: Self.trimmed(PQerrorMessage(handle)))
            leavePipeline()
            broken = true
            throw StorageError(.unavailable, "PostgreSQL connection failed", underlying: error)
        }
        var synced = false
        var results: [OpaquePointer?] = []
        results.reserveCapacity(count)
        for _ in 0..<count { results.append(synced ? nil : pipelineResult(synced: &synced)) }
        // The sync point's own result; nothing follows it. Missing only if the connection broke.
        if !synced, let sync = PQgetResult(handle) {
            if PQresultStatus(sync) != PGRES_PIPELINE_SYNC { broken = true }
            PQclear(sync)
        }
        leavePipeline()
        return results
    }

    /// One query's result in a pipeline: its results up to the nil that ends them, keeping the
    /// first failure, else the last one. A sync point met instead (the query never answered)
    /// ends the reading and sets `synced`.
    private func pipelineResult(synced: inout Bool) -> OpaquePointer? {
        var kept: OpaquePointer?
        while let result = PQgetResult(handle) {
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                PQclear(result)
                synced = true
                break
            }
            if let kept, !Self.succeeded(kept) {
                PQclear(result)
            } else {
                if let kept { PQclear(kept) }
                kept = result
            }
        }
        return kept
    }

    /// Leaves pipeline mode; a connection that cannot is not lent again.
    private func leavePipeline() {
        if PQexitPipelineMode(handle) != 1 { broken = true }
    }

    private static func succeeded(_ result: OpaquePointer) -> Bool {
        let status = PQresultStatus(result)
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY
    }

    /// Runs `sql` as a named prepared statement of this session, preparing it on first use: the
    /// server parses and plans each distinct statement once per connection instead of every time
    /// (`PQexecParams` does both on every call), and a warm statement costs one round trip.
    private func executePrepared(sql: String, parameters: PGParameters, mayRetry: Bool) throws -> OpaquePointer {
        let (key, name) = try prepared(sql: sql, parameters: parameters)
        roundTrips += 1
        let result = parameters.withValues { values in
            PQexecPrepared(handle, name, parameters.count, values, parameters.lengths, parameters.formats, 0)
        }
        if let result, Self.isStaleStatement(result) {
            // The statement no longer fits the schema (a migration altered a table it reads), or
            // the server forgot it: prepare it afresh next time. Outside a transaction block the
            // failed call changed nothing, so it is retried once at once; inside one the
            // transaction is lost anyway and the caller sees the error.
            _ = statements.remove(key)
            if mayRetry && isIdle {
                PQclear(result)
                deallocate(name)
                return try executePrepared(sql: sql, parameters: parameters, mayRetry: false)
            }
        }
        do {
            try check(result)
        } catch {
            PQclear(result)
            throw error
        }
        guard let result else { throw StorageError(.unavailable, "PostgreSQL connection failed") }
        return result
    }

    /// The cache key and name of the session's prepared statement for `sql` with these parameter
    /// kinds, preparing it on first use.
    private func prepared(sql: String, parameters: PGParameters) throws -> (key: String, name: String) {
        let key = sql + "\u{0}" + parameters.signature
        return (key, try statement(for: key, sql: sql, parameters: parameters))
    }

    /// The name of the session's prepared statement for `key`, preparing it if needed.
    private func statement(for key: String, sql: String, parameters: PGParameters) throws -> String {
        if let name = statements.handle(for: key) { return name }
        if isIdle {
            retired.forEach(deallocate)
            retired.removeAll()
        }
        preparedCount += 1
        let name = "pass_server_\(preparedCount)"
        roundTrips += 1
        let result = PQprepare(handle, name, sql, parameters.count, parameters.types)
        defer { PQclear(result) }
        try check(result)
        if let evicted = statements.insert(name, for: key) { retired.append(evicted) }
        return name
    }

    /// Frees a server-side statement, outside transaction blocks only (a failed DEALLOCATE would
    /// abort the caller's transaction). Best effort: a failure leaves an unused statement behind
    /// until the session ends, which is harmless.
    private func deallocate(_ name: String) {
        // A name this connection generated, never outside text: safe as raw SQL.
        PQclear(PQexec(handle, "DEALLOCATE \(name)"))
    }

    /// Whether an execution failed only because its prepared statement is out of date:
    /// "cached plan must not change result type" (0A000) or "prepared statement does not exist" (26000).
    private static func isStaleStatement(_ result: OpaquePointer) -> Bool {
        guard PQresultStatus(result) == PGRES_FATAL_ERROR,
              let field = PQresultErrorField(result, Int32(UInt8(ascii: "C")))
        else { return false }
        let sqlState = String(cString: field)
        return sqlState == "0A000" || sqlState == "26000"
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
        case .timeout: "PostgreSQL is busy (a statement timed out or lost a race for locks)"
        case .conflict: "row already exists"
        case .notFound: "referenced row does not exist"
        case .invalidValue: "value rejected by PostgreSQL"
        case .migrationFailed: "migration failed"
        case .backend: "PostgreSQL error"
        }
    }

    private static func trimmed(_ message: UnsafeMutablePointer<CChar>?) -> String {
        guard let message else { return "unknown libpq error" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

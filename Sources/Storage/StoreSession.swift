/// One borrowed connection: the operations of the store, run on it.
///
/// A session is lent to a closure by `Store.withSession` or `Store.transaction` and must not
/// escape it (nor be used from another thread). Operations that change several rows open their
/// own transaction, or join the surrounding one when called inside `transaction`.
public final class StoreSession {
    let connection: any SQLConnection
    /// What the session was borrowed for: a write session also serves nested reads.
    public let access: StoreAccess
    private var transactionDepth = 0
    /// Set when a transaction nested in another one threw: the outermost one then rolls back.
    private var rollbackOnly = false
    /// Set once the outermost transaction ran its final statement (`executeFinal`): no statement
    /// may follow. `finalCommitted` if that statement and the COMMIT with it succeeded.
    private var finalStatementRun = false
    private var finalCommitted = false
    /// Statements this session has run, transaction control aside: bulk operations promise a
    /// fixed number of round trips whatever their size, and tests hold them to it.
    private(set) var statementsRun = 0
    /// Where the connection pipelines (PostgreSQL), what the open transaction has not sent yet: its
    /// BEGIN until its first statement, and the writes whose rows nobody reads
    /// (`executeDeferred`). They go with the next statement, or with the COMMIT.
    private var beginPending = false
    private var deferred: [PipelineStep] = []

    init(connection: any SQLConnection, access: StoreAccess) {
        self.connection = connection
        self.access = access
    }

    var dialect: SQLDialect { connection.dialect }

    /// Runs one statement and returns its rows.
    @discardableResult
    public func execute(_ query: SQLQuery) throws -> [SQLRow] {
        try mayRun()
        statementsRun += 1
        // Nothing waiting to go with it: the plain call, as every statement outside a transaction.
        guard beginPending || !deferred.isEmpty else { return try connection.query(query) }
        return try send([.query(query)])
    }

    /// Runs a write whose rows the caller does not read. Inside a transaction on PostgreSQL it is
    /// sent with the next statement or with the COMMIT (one round trip for all of them); if it
    /// fails, that later call throws its error and the transaction rolls back. Elsewhere it runs
    /// at once. For statements whose failure the caller would not handle on its own.
    func executeDeferred(_ query: SQLQuery) throws {
        try mayRun()
        statementsRun += 1
        if transactionDepth > 0 && connection.pipelines {
            deferred.append(.query(query))
        } else {
            _ = try send([.query(query)])
        }
    }

    /// Runs trusted SQL text that may hold several statements (migrations), after whatever the
    /// transaction has not sent yet (several statements in one text cannot join a pipeline).
    func executeScript(_ sql: String) throws {
        try mayRun()
        let pending = takePending()
        if !pending.isEmpty { _ = try connection.pipeline(pending) }
        try connection.executeScript(sql)
    }

    /// Sends `steps` after whatever the transaction has not sent yet, in one round trip where the
    /// connection pipelines, and returns the rows of the last query.
    private func send(_ steps: [PipelineStep]) throws -> [SQLRow] {
        guard beginPending || !deferred.isEmpty else { return try connection.pipeline(steps) }
        return try connection.pipeline(takePending() + steps)
    }

    /// What the transaction has not sent yet (its BEGIN, its deferred writes), handed over once.
    private func takePending() -> [PipelineStep] {
        defer {
            beginPending = false
            deferred.removeAll()
        }
        return (beginPending ? [.control("BEGIN")] : []) + deferred
    }

    /// Runs `query` as the last statement of the transaction the caller opened (the body of its
    /// own `transaction` call) and returns its rows.
    ///
    /// In the outermost transaction the COMMIT goes with the statement: on PostgreSQL in the same
    /// round trip (a libpq pipeline), so the locks the statement takes, such as the revision
    /// counter's, are released as soon as the server has run it rather than after its rows have
    /// reached this process and a COMMIT has come back. The transaction is then over: a statement
    /// run after it throws, and an error the body throws after it cannot undo what was committed.
    /// If the statement or the COMMIT fails, nothing is committed: the error is thrown and the
    /// transaction rolls back, as when `execute` fails.
    ///
    /// In a transaction nested in another one this is `execute`: nothing is committed before the
    /// outermost one returns.
    @discardableResult
    func executeFinal(_ query: SQLQuery) throws -> [SQLRow] {
        guard transactionDepth == 1 else { return try execute(query) }
        try mayRun()
        statementsRun += 1
        finalStatementRun = true
        let rows = try send([.query(query), .control("COMMIT")])
        finalCommitted = true
        return rows
    }

    /// Throws if the transaction can run no more statements.
    private func mayRun() throws {
        if rollbackOnly { throw Self.rolledBack }
        if finalStatementRun { throw Self.finished }
    }

    /// Runs `body` atomically.
    ///
    /// A call inside another transaction of this session joins it: nothing is committed before
    /// the outermost one returns. If a nested call throws, the whole transaction is lost even when
    /// the caller catches the error: every later statement in it fails, and the outermost call
    /// rolls back and throws. Both backends behave alike (left to themselves, PostgreSQL refuses
    /// every statement after a failed one while SQLite goes on).
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            do {
                return try body()
            } catch {
                rollbackOnly = true
                throw error
            }
        }
        if connection.pipelines {
            // BEGIN travels with the transaction's first statement.
            beginPending = true
        } else {
            // IMMEDIATE takes SQLite's write lock up front, so a read-then-write never hits SQLITE_BUSY.
            try connection.executeScript(dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN")
        }
        transactionDepth = 1
        defer {
            transactionDepth = 0
            rollbackOnly = false
            finalStatementRun = false
            finalCommitted = false
            beginPending = false
            deferred.removeAll()
        }
        let result: T
        do {
            result = try body()
        } catch {
            if !finalCommitted { rollBack() }
            throw error
        }
        // Committed with its final statement; whatever failed after it ran no statement.
        if finalCommitted { return result }
        if rollbackOnly {
            rollBack()
            throw Self.rolledBack
        }
        if finalStatementRun {
            // The body caught the final statement's error: the transaction is lost all the same.
            rollBack()
            throw Self.finalFailed
        }
        do {
            try commit()
        } catch {
            rollBack()
            throw error
        }
        return result
    }

    /// Commits the open transaction with whatever it has not sent yet; a transaction that never
    /// ran a statement never reached the server and sends nothing.
    private func commit() throws {
        if beginPending && deferred.isEmpty {
            beginPending = false
            return
        }
        _ = try send([.control("COMMIT")])
    }

    /// Rolls back the open transaction; what it has not sent yet is dropped.
    private func rollBack() {
        deferred.removeAll()
        if beginPending {
            beginPending = false
            return
        }
        try? connection.executeScript("ROLLBACK")
    }

    private static let rolledBack = StorageError(.backend, "the transaction was rolled back: a transaction nested in it failed")
    private static let finished = StorageError(.backend, "the transaction already ended with its final statement")
    private static let finalFailed = StorageError(.backend, "the transaction was rolled back: its final statement failed")

    /// Runs a query expected to return at most one row.
    func first(_ query: SQLQuery) throws -> SQLRow? {
        try execute(query).first
    }

    /// Takes the next value of the global revision counter.
    ///
    /// The row lock this UPDATE takes is held until the surrounding transaction ends, so
    /// transactions that take revisions commit in revision order: a reader never sees revision N+1
    /// without N. A SEQUENCE would not give that guarantee.
    func nextRevision() throws -> Int64 {
        guard let row = try first("UPDATE counters SET value = value + 1 WHERE name = 'revision' RETURNING value") else {
            throw StorageError(.backend, "the revision counter is missing (run migrations)")
        }
        return try row.int64("value")
    }

    /// `GREATEST` on PostgreSQL, scalar `max` on SQLite.
    var greatest: String { dialect.pick(postgres: "GREATEST", sqlite: "max") }

    /// `FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite has a single writer and needs nothing.
    var skipLocked: String { dialect.pick(postgres: " FOR UPDATE SKIP LOCKED", sqlite: "") }

    /// `FOR UPDATE` on PostgreSQL.
    var forUpdate: String { dialect.pick(postgres: " FOR UPDATE", sqlite: "") }

    /// A collation comparing bytes: `COLLATE "C"` on PostgreSQL (whatever the database's locale);
    /// SQLite's default BINARY already does.
    var bytewise: String { dialect.pick(postgres: #" COLLATE "C""#, sqlite: "") }
}

/// One borrowed connection: the operations of the store, run on it.
///
/// A session is lent to a closure by `Store.withSession` or `Store.transaction` and must not
/// escape it (nor be used from another thread). Operations that change several rows open their
/// own transaction, or join the surrounding one when called inside `transaction`.
public final class StoreSession {
    let connection: any SQLConnection
    /// What the session was borrowed for: a write session also serves nested reads.
    public let access: StoreAccess
    /// Where the session's transaction stands (see `TransactionState`), with what the open
    /// transaction has not sent yet where the connection pipelines (PostgreSQL): its BEGIN until
    /// its first statement, and the writes whose rows nobody reads (`executeDeferred`). They go
    /// with the next statement, or with the COMMIT.
    private var state = TransactionState.idle
    /// Statements this session has run, transaction control aside: bulk operations promise a
    /// fixed number of round trips whatever their size, and tests hold them to it.
    private(set) var statementsRun = 0

    init(connection: any SQLConnection, access: StoreAccess) {
        self.connection = connection
        self.access = access
    }

    var dialect: SQLDialect { connection.dialect }

    /// Runs one statement and returns its rows.
    @discardableResult
    public func execute(_ query: SQLQuery) throws -> [SQLRow] {
        try state.checkMayRun()
        statementsRun += 1
        // Nothing waiting to go with it: the plain call, as every statement outside a transaction.
        guard state.hasUnsent else { return try connection.query(query) }
        return try connection.pipeline(state.takeUnsent() + [.query(query)])
    }

    /// Runs a write whose rows the caller does not read. Inside a transaction on PostgreSQL it is
    /// sent with the next statement or with the COMMIT (one round trip for all of them); if it
    /// fails, that later call throws its error and the transaction rolls back. Elsewhere it runs
    /// at once. For statements whose failure the caller would not handle on its own.
    func executeDeferred(_ query: SQLQuery) throws {
        try state.checkMayRun()
        statementsRun += 1
        if connection.pipelines && state.deferWrite(.query(query)) { return }
        _ = try connection.pipeline(state.takeUnsent() + [.query(query)])
    }

    /// Runs trusted SQL text that may hold several statements (migrations), after whatever the
    /// transaction has not sent yet (several statements in one text cannot join a pipeline).
    func executeScript(_ sql: String) throws {
        try state.checkMayRun()
        let unsent = state.takeUnsent()
        if !unsent.isEmpty { _ = try connection.pipeline(unsent) }
        try connection.executeScript(sql)
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
        try state.checkMayRun()
        guard let unsent = state.sendFinal() else { return try execute(query) }
        statementsRun += 1
        let rows = try connection.pipeline(unsent + [.query(query), .control("COMMIT")])
        state.finalCommitted()
        return rows
    }

    /// Runs `body` atomically.
    ///
    /// A call inside another transaction of this session joins it: nothing is committed before
    /// the outermost one returns. If a nested call throws, the whole transaction is lost even when
    /// the caller catches the error: every later statement in it fails, and the outermost call
    /// rolls back and throws. Both backends behave alike (left to themselves, PostgreSQL refuses
    /// every statement after a failed one while SQLite goes on).
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if state.inTransaction {
            state.enterNested()
            do {
                let result = try body()
                state.leaveNested(threw: false)
                return result
            } catch {
                state.leaveNested(threw: true)
                throw error
            }
        }
        if !connection.pipelines {
            // IMMEDIATE takes SQLite's write lock up front, so a read-then-write never hits SQLITE_BUSY.
            try connection.executeScript(dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN")
        }
        // Where the connection pipelines, BEGIN travels with the transaction's first statement.
        state.begin(beginUnsent: connection.pipelines)
        let result: T
        do {
            result = try body()
        } catch {
            finish(state.end(bodyThrew: true))
            throw error
        }
        if let error = finish(state.end(bodyThrew: false)) { throw error }
        return result
    }

    /// Carries out the end of the outermost transaction; returns the error to throw, if any.
    @discardableResult
    private func finish(_ ending: TransactionState.Ending) -> (any Error)? {
        switch ending {
        case .nothing:
            return nil
        case .commit(let steps):
            do {
                _ = try connection.pipeline(steps)
                return nil
            } catch {
                try? connection.executeScript("ROLLBACK")
                return error
            }
        case .rollBack(let send, let error):
            if send { try? connection.executeScript("ROLLBACK") }
            return error
        }
    }

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

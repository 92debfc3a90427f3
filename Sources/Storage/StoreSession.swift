/// One borrowed connection: the operations of the store, run on it.
///
/// A session is lent to a closure by `Store.withSession` or `Store.transaction` and must not
/// escape it. Operations that change several rows open their own transaction, or join the
/// surrounding one when called inside `transaction`.
public final class StoreSession {
    let connection: any SQLConnection
    private var transactionDepth = 0
    /// Statements this session has run, transaction control aside: bulk operations promise a
    /// fixed number of round trips whatever their size, and tests hold them to it.
    private(set) var statementsRun = 0

    init(connection: any SQLConnection) {
        self.connection = connection
    }

    var dialect: SQLDialect { connection.dialect }

    /// Runs one statement and returns its rows.
    @discardableResult
    public func execute(_ query: SQLQuery) throws -> [SQLRow] {
        statementsRun += 1
        return try connection.query(query)
    }

    /// Runs `body` atomically. Nested calls join the outermost transaction.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            return try body()
        }
        // IMMEDIATE takes SQLite's write lock up front, so a read-then-write never hits SQLITE_BUSY.
        try connection.executeScript(dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN")
        transactionDepth = 1
        defer { transactionDepth = 0 }
        let result: T
        do {
            result = try body()
        } catch {
            try? connection.executeScript("ROLLBACK")
            throw error
        }
        do {
            try connection.executeScript("COMMIT")
        } catch {
            try? connection.executeScript("ROLLBACK")
            throw error
        }
        return result
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
    var greatest: String { dialect == .postgres ? "GREATEST" : "max" }

    /// `FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite has a single writer and needs nothing.
    var skipLocked: String { dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : "" }

    /// `FOR UPDATE` on PostgreSQL.
    var forUpdate: String { dialect == .postgres ? " FOR UPDATE" : "" }

    /// A collation comparing bytes: `COLLATE "C"` on PostgreSQL (whatever the database's locale);
    /// SQLite's default BINARY already does.
    var bytewise: String { dialect == .postgres ? #" COLLATE "C""# : "" }
}

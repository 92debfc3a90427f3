/// What the shared operations need from a backend connection. Implemented by `PGConnection` and
/// `SQLiteConnection`; used by one thread at a time.
protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs one statement with bind parameters and returns its rows.
    func query(_ query: SQLQuery) throws -> [SQLRow]
    /// Runs trusted SQL text that may hold several statements (migrations, transaction control).
    func executeScript(_ sql: String) throws
    /// Runs the last statement of the open transaction, then COMMIT, and returns the statement's
    /// rows. If the statement fails, the transaction is left open (and failed) for the caller to
    /// roll back; if the COMMIT fails, its error is thrown.
    func queryThenCommit(_ query: SQLQuery) throws -> [SQLRow]
}

extension SQLConnection {
    /// One call after the other (SQLite, in process: nothing to save).
    func queryThenCommit(_ query: SQLQuery) throws -> [SQLRow] {
        let rows = try self.query(query)
        try executeScript("COMMIT")
        return rows
    }
}

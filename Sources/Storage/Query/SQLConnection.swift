/// What the shared operations need from a backend connection. Implemented by `PGConnection` and
/// `SQLiteConnection`; used by one thread at a time.
protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs one statement with bind parameters and returns its rows.
    func query(_ query: SQLQuery) throws -> [SQLRow]
    /// Runs trusted SQL text that may hold several statements (migrations, transaction control).
    func executeScript(_ sql: String) throws
}

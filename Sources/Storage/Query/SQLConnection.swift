/// What the shared operations need from a backend connection. Implemented by `PGConnection` and
/// `SQLiteConnection`; used by one thread at a time.
protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs one statement with bind parameters and returns its rows.
    func query(_ query: SQLQuery) throws -> [SQLRow]
    /// Runs trusted SQL text that may hold several statements (migrations, transaction control).
    func executeScript(_ sql: String) throws
    /// Whether `pipeline` sends its steps in one round trip (PostgreSQL). Where it does not, the
    /// session runs each statement as it comes.
    var pipelines: Bool { get }
    /// Runs `steps` in order and returns the rows of the last query among them. If one fails, none
    /// after it runs and its error is thrown; an open transaction is left open and failed for the
    /// caller to roll back.
    func pipeline(_ steps: [PipelineStep]) throws -> [SQLRow]
}

/// One step of a pipeline: a statement with its parameters, or transaction control text.
enum PipelineStep {
    case query(SQLQuery)
    case control(String)
}

extension SQLConnection {
    /// One call after the other (SQLite, in process: nothing to save).
    var pipelines: Bool { false }

    func pipeline(_ steps: [PipelineStep]) throws -> [SQLRow] {
        var rows: [SQLRow] = []
        for step in steps {
            switch step {
            case .query(let query): rows = try self.query(query)
            case .control(let sql): try executeScript(sql)
            }
        }
        return rows
    }
}

/// A feature's operations on a session (`session.passes`, `session.outbox`, …): a view that holds
/// nothing but the session, with the session's statement runners at hand, so that each feature's
/// operations read alike and a caller finds them by feature rather than in one long list.
///
/// A view is made afresh by each access (it is one reference) and, like the session, must not
/// escape the closure the session was lent to.
protocol SessionOperations {
    var session: StoreSession { get }
}

extension SessionOperations {
    var dialect: SQLDialect { session.dialect }
    var access: StoreAccess { session.access }

    @discardableResult
    func execute(_ query: SQLQuery) throws -> [SQLRow] { try session.execute(query) }

    func executeDeferred(_ query: SQLQuery) throws { try session.executeDeferred(query) }

    func executeScript(_ sql: String) throws { try session.executeScript(sql) }

    @discardableResult
    func executeFinal(_ query: SQLQuery) throws -> [SQLRow] { try session.executeFinal(query) }

    func first(_ query: SQLQuery) throws -> SQLRow? { try session.first(query) }

    func transaction<T>(_ body: () throws -> T) throws -> T { try session.transaction(body) }

    func nextRevision() throws -> Int64 { try session.nextRevision() }

    func column(_ column: String, in ids: [Int64]) -> SQLQuery { session.column(column, in: ids) }

    func textColumn(_ column: String, in texts: [String]) -> SQLQuery { session.textColumn(column, in: texts) }

    func recordSet(_ records: JSONRecords, alias: String, columns: [(name: String, type: String)]) -> SQLQuery {
        session.recordSet(records, alias: alias, columns: columns)
    }

    var greatest: String { session.greatest }
    var skipLocked: String { session.skipLocked }
    var forUpdate: String { session.forUpdate }
    var bytewise: String { session.bytewise }
}

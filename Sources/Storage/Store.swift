/// Which database a store talks to.
public enum StorageBackend: String, Sendable {
    case postgres
    case sqlite
}

/// Whether a session only reads. SQLite runs writes on its single writer connection and reads on
/// reader connections; PostgreSQL ignores the distinction.
public enum StoreAccess: Sendable {
    case read
    case write
}

/// The database behind PassServer: PostgreSQL (`PostgresStore`) or embedded SQLite (`SQLiteStore`).
///
/// Every method blocks the calling thread until the database answers: call them from HTTP engine
/// threads or dedicated threads, never from Swift's cooperative pool. The operations themselves
/// (`insertPass`, `upsertRegistration`, `claimOutbox`, …) are defined once for both backends on
/// `StoreSession`: borrow a session with `withSession(.read)` or `withSession(.write)` and run as
/// many of them on it as the work needs; `transaction` also makes them one atomic change.
public protocol Store: Sendable {
    var backend: StorageBackend { get }

    /// Lends one connection to `body` for its duration (outside any transaction).
    ///
    /// Nested use on the same thread borrows nothing: inside a session of this store, `withSession`
    /// and `transaction` run on that same session (a `.write` inside a `.read` session throws
    /// `.invalidValue`). Another thread borrows a connection of its own.
    func withSession<T>(_ access: StoreAccess, _ body: (StoreSession) throws -> T) throws -> T

    /// Releases idle connections. Later calls fail with `.unavailable` (PostgreSQL).
    func close()
}

extension Store {
    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws. Inside
    /// another transaction of this store (same thread) it joins that one: see
    /// `StoreSession.transaction`.
    public func transaction<T>(_ body: (StoreSession) throws -> T) throws -> T {
        try withSession(.write) { session in try session.transaction { try body(session) } }
    }

    /// Applies every migration not applied yet. Safe to call from several processes at once.
    public func migrate() throws {
        try withSession(.write) { try $0.migrate() }
    }

    /// One round trip to the database (for `/readyz`).
    public func ping() throws {
        _ = try withSession(.read) { try $0.execute("SELECT 1 AS one") }
    }

    /// Runs one statement outside a transaction and returns its rows.
    @discardableResult
    public func execute(_ query: SQLQuery) throws -> [SQLRow] {
        try withSession(.write) { try $0.execute(query) }
    }
}

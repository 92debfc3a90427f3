import SystemSupport

/// The PostgreSQL `Store`: libpq connections from a pool, one thread per connection at a time.
///
/// Several processes may share one database: the outbox and jobs are claimed with
/// `FOR UPDATE SKIP LOCKED`, and migrations hold `pg_advisory_lock`.
public final class PostgresStore: Store {
    private let pool: PGConnectionPool

    public var backend: StorageBackend { .postgres }

    /// Opens a pool for `url` (passed to libpq as is). No connection is made until first use.
    public init(url: String, options: StoreOptions = StoreOptions()) {
        pool = PGConnectionPool(settings: .init(
            url: url,
            size: options.poolSize ?? StoreOptions.defaultPoolSize,
            statementTimeoutMilliseconds: Int(options.statementTimeout.milliseconds),
            acquireTimeout: options.acquireTimeout,
            logger: options.logger
        ))
    }

    /// The number of connections the pool may open.
    public var poolSize: Int { pool.settings.size }

    public func withSession<T>(_ access: StoreAccess, _ body: (StoreSession) throws -> T) throws -> T {
        try OpenSessions.withSession(of: self, access, borrow: { inner in
            try pool.withConnection { try inner(StoreSession(connection: $0, access: access)) }
        }, body)
    }

    public func close() {
        pool.close()
    }
}

import Foundation
public import Logging

/// Tuning for a store. Read from `DATABASE_POOL_SIZE` and `DATABASE_STATEMENT_TIMEOUT` by the app.
public struct StoreOptions: Sendable {
    /// PostgreSQL connections (default `2 × cores + 2`); SQLite reader connections (default 4).
    public var poolSize: Int?
    /// PostgreSQL `statement_timeout` set on every connection (default 10 s).
    public var statementTimeout: Duration
    /// How long a call waits for a free pooled connection before failing with `.timeout`.
    public var acquireTimeout: Duration
    /// SQLite `busy_timeout` (default 5 s).
    public var busyTimeout: Duration
    /// Where connection losses and reconnects are reported (never with URLs or values).
    public var logger: Logger?
    /// Whether an SQLite file that does not exist is created (and its directories). Off for tools
    /// that work on an existing database, so a mistyped path is named instead of becoming an empty one.
    public var createIfMissing: Bool

    public init(
        poolSize: Int? = nil,
        statementTimeout: Duration = .seconds(10),
        acquireTimeout: Duration = .seconds(10),
        busyTimeout: Duration = .seconds(5),
        logger: Logger? = nil,
        createIfMissing: Bool = true
    ) {
        self.poolSize = poolSize
        self.statementTimeout = statementTimeout
        self.acquireTimeout = acquireTimeout
        self.busyTimeout = busyTimeout
        self.logger = logger
        self.createIfMissing = createIfMissing
    }

    /// `2 × active cores + 2`: enough to keep the server's cores busy while others wait on I/O.
    public static var defaultPoolSize: Int { 2 * ProcessInfo.processInfo.activeProcessorCount + 2 }
}

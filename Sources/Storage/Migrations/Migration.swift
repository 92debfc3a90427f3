import Foundation

/// One schema change: a version, a name, and the SQL for each backend.
struct Migration: Sendable {
    var version: Int
    var name: String
    var postgres: String
    var sqlite: String

    func sql(for dialect: SQLDialect) -> String {
        dialect.pick(postgres: postgres, sqlite: sqlite)
    }

    /// Every migration, in the order they apply. Append only; never edit an applied one
    /// (`MigrationPinTests` holds the SHA-256 of each one's SQL on both backends).
    static let all: [Migration] = [initialSchema, retention, pushOutcomes, downloadNonce, organizers, reach, sessions, hotUpdates, checkIns, mail, claimOrder, searchIndexes, pendingIndexes, designs, templateMappings, scannerAccess, erasure, attendance, googleWallet, pushServices, googleOutbox, webhooks, scheduling, orders]
}

extension Migration {
    /// SQL written once for both backends: `sql` is called with each dialect and spells through it
    /// what the two spell differently (`\(db.bigint)`, `\(db.serialKey)`).
    init(version: Int, name: String, sql: (SQLDialect) -> String) {
        self.init(version: version, name: name, postgres: sql(.postgres), sqlite: sql(.sqlite))
    }

    /// The same SQL on both backends.
    init(version: Int, name: String, sql: String) {
        self.init(version: version, name: name, postgres: sql, sqlite: sql)
    }
}

/// What the two backends spell differently in migrations that otherwise share their SQL.
extension SQLDialect {
    /// A 64-bit integer column (SQLite's INTEGER holds 64 bits).
    var bigint: String { pick(postgres: "BIGINT", sqlite: "INTEGER") }
    /// A byte string column.
    var bytes: String { pick(postgres: "BYTEA", sqlite: "BLOB") }
    /// A generated, never reused 64-bit primary key.
    var serialKey: String { pick(postgres: "BIGSERIAL PRIMARY KEY", sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT") }
}

extension StoreSession {
    /// Arbitrary constant identifying PassServer's migration lock among advisory locks.
    private static let advisoryLockKey: Int64 = 0x5041_5353_4D49_47 // "PASSMIG"

    /// Applies pending migrations in order, each recorded in `schema_migrations`; `last` stops
    /// after that version (tests build the schema an older release left behind).
    ///
    /// PostgreSQL: a session-level `pg_advisory_lock` serialises concurrent migrators (another
    /// process waits, then finds everything applied); each migration runs in its own transaction.
    /// SQLite: everything runs inside one `BEGIN IMMEDIATE` transaction.
    func migrate(through last: Int = .max) throws {
        let selected = Migration.all.filter { $0.version <= last }
        do {
            switch dialect {
            case .postgres:
                try execute("SELECT pg_advisory_lock(\(Self.advisoryLockKey))")
                defer { _ = try? execute("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))") }
                try executeScript("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)")
                for migration in selected {
                    try transaction {
                        try apply(migration)
                    }
                }
            case .sqlite:
                try transaction {
                    try executeScript("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)")
                    for migration in selected {
                        try apply(migration)
                    }
                }
            }
        } catch let error as StorageError where error.code == .unavailable || error.code == .timeout {
            throw error
        } catch let error as StorageError {
            throw StorageError(.migrationFailed, "schema migration failed: \(error.message)", underlying: error)
        }
    }

    private func apply(_ migration: Migration) throws {
        let applied = try first("SELECT version FROM schema_migrations WHERE version = \(migration.version)")
        guard applied == nil else { return }
        try executeScript(migration.sql(for: dialect))
        let now = Date().storageMillis
        try execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (\(migration.version), \(migration.name), \(now))")
    }
}

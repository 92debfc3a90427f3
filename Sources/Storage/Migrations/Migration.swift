import Foundation

/// One schema change: a version, a name, and the SQL for each backend.
struct Migration: Sendable {
    var version: Int
    var name: String
    var postgres: String
    var sqlite: String

    func sql(for dialect: SQLDialect) -> String {
        dialect == .postgres ? postgres : sqlite
    }

    /// Every migration, in the order they apply. Append only; never edit an applied one.
    static let all: [Migration] = [initialSchema, retention, pushOutcomes, downloadNonce, organizers, reach, sessions, hotUpdates, checkIns, mail, claimOrder, searchIndexes, pendingIndexes]
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

// Indexes for the retention sweep and the metrics counts, and the lease that lets one process at a
// time sweep when several share the database.

extension Migration {
    static let retention = Migration(version: 2, name: "retention and monitoring") { db in
        // As each backend's SQL shipped: PostgreSQL's index expression has a second pair of parentheses.
        let ended = db.pick(postgres: "(COALESCE(ends_at, starts_at))", sqlite: "COALESCE(ends_at, starts_at)")
        return """
        CREATE INDEX push_log_created ON push_log (created_at);
        CREATE INDEX push_outbox_enqueued ON push_outbox (state, first_enqueued_at);
        CREATE INDEX jobs_finished ON jobs (finished_at);
        CREATE INDEX events_ended ON events (\(ended));
        CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at \(db.bigint) NOT NULL);
        """
    }
}

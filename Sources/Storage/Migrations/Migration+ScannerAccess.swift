// Version 17: door staff signed in from the dashboard.
//
// A scanner access lets the phones that open its sign-in link scan the tickets of one event until
// it expires or is revoked. The link's code is stored only as its SHA-256 (`code_hash`), like every
// other token. Each phone signed in through it has a session (`scanner_sessions`), found by the
// SHA-256 of its cookie's id, bound to the access: revoking the access or reaching its expiry ends
// them all at once, since a session is valid only while its access is. `last_seen_at` is refreshed
// at most once a minute, so the organizer sees which phones are still in use.

extension Migration {
    static let scannerAccess = Migration(version: 17, name: "scanner access for door staff and its sessions") { db in
        """
        CREATE TABLE scanner_access (
            id \(db.serialKey),
            event_id TEXT NOT NULL REFERENCES events (id),
            name TEXT NOT NULL,
            code_hash \(db.bytes) NOT NULL UNIQUE,
            created_by TEXT NOT NULL,
            created_at \(db.bigint) NOT NULL,
            expires_at \(db.bigint) NOT NULL,
            revoked_at \(db.bigint)
        );
        CREATE INDEX scanner_access_event ON scanner_access (event_id, created_at);
        CREATE TABLE scanner_sessions (
            id_hash \(db.bytes) PRIMARY KEY,
            access_id \(db.bigint) NOT NULL REFERENCES scanner_access (id) ON DELETE CASCADE,
            device TEXT NOT NULL,
            created_at \(db.bigint) NOT NULL,
            last_seen_at \(db.bigint) NOT NULL,
            expires_at \(db.bigint) NOT NULL
        );
        CREATE INDEX scanner_sessions_access ON scanner_sessions (access_id, created_at);
        CREATE INDEX scanner_sessions_expiry ON scanner_sessions (expires_at);
        """
    }
}

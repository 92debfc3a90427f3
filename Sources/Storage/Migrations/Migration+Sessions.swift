// Version 8: the dashboard's sign-in sessions.
//
// A session belongs to the admin token it was opened with (its role is read through the token,
// so revoking the token ends its sessions) and is found by the SHA-256 of its random id, like
// every other token: the database never holds a usable cookie. `expires_at` is indexed for the
// retention sweep, which deletes expired sessions.

extension Migration {
    static let sessions = Migration(version: 8, name: "dashboard sessions") { db in
        """
        CREATE TABLE admin_sessions (
            id_hash \(db.bytes) PRIMARY KEY,
            token_id \(db.bigint) NOT NULL REFERENCES admin_tokens (id) ON DELETE CASCADE,
            created_at \(db.bigint) NOT NULL,
            expires_at \(db.bigint) NOT NULL
        );
        CREATE INDEX admin_sessions_expiry ON admin_sessions (expires_at);
        """
    }
}

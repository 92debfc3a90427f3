public import Foundation

// Dashboard sessions (table `admin_sessions`, migration 8). A session lives until it expires,
// is signed out, or the token it was opened with is revoked.
extension AdminOperations {
    /// Stores a new session of the token `tokenID`, found later by `idHash`, valid until `expiresAt`.
    public func createAdminSession(idHash: [UInt8], tokenID: Int64, now: Date, expiresAt: Date) throws {
        try execute("""
            INSERT INTO admin_sessions (id_hash, token_id, created_at, expires_at)
            VALUES (\(idHash), \(tokenID), \(now.storageMillis), \(expiresAt.storageMillis))
            """)
    }

    /// The session with this hash if it has not expired at `now` and its token is not revoked.
    public func adminSession(idHash: [UInt8], now: Date) throws -> AdminSession? {
        guard let row = try first("""
            SELECT s.id_hash, s.created_at AS session_created_at, s.expires_at,
                   t.id, t.name, t.role, t.token_hash, t.created_at, t.revoked_at
            FROM admin_sessions s JOIN admin_tokens t ON t.id = s.token_id
            WHERE s.id_hash = \(idHash) AND s.expires_at > \(now.storageMillis) AND t.revoked_at IS NULL
            """)
        else { return nil }
        return AdminSession(
            idHash: try row.bytes("id_hash"), token: try AdminToken(row: row), createdAt: try row.date("session_created_at"),
            expiresAt: try row.date("expires_at")
        )
    }

    /// Deletes the session with this hash (signing out); whether there was one.
    @discardableResult
    public func deleteAdminSession(idHash: [UInt8]) throws -> Bool {
        try execute("DELETE FROM admin_sessions WHERE id_hash = \(idHash) RETURNING token_id").count > 0
    }

    /// Deletes the sessions of the token `tokenID` but its `keep` newest (signing in bounds a
    /// token's sessions so); returns how many. A token has few sessions: the scan of its rows
    /// is short.
    @discardableResult
    public func deleteAdminSessions(tokenID: Int64, keepingNewest keep: Int) throws -> Int {
        try execute("""
            DELETE FROM admin_sessions WHERE token_id = \(tokenID) AND id_hash NOT IN (
                SELECT id_hash FROM admin_sessions WHERE token_id = \(tokenID) ORDER BY created_at DESC, id_hash DESC LIMIT \(keep))
            RETURNING token_id
            """).count
    }

    /// Deletes up to `limit` sessions that expired at or before `cutoff`; returns how many.
    public func deleteExpiredAdminSessions(before cutoff: Date, limit: Int) throws -> Int {
        try execute("""
            DELETE FROM admin_sessions WHERE id_hash IN (
                SELECT id_hash FROM admin_sessions WHERE expires_at <= \(cutoff.storageMillis) ORDER BY expires_at LIMIT \(limit))
            RETURNING token_id
            """).count
    }
}

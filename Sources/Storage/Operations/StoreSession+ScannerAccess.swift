public import Foundation

// Scanner access for door staff and the sessions of the phones signed in with it (tables
// `scanner_access` and `scanner_sessions`, migration 17). A session is valid only while it and
// its access are: revoking the access or passing its expiry ends every session at once.
extension ScannerOperations {
    private static let accessColumns = SQLQuery(unsafeRaw: """
        a.id AS access_id, a.event_id, a.name AS access_name, a.created_by, a.created_at AS access_created_at,
        a.expires_at AS access_expires_at, a.revoked_at
        """)
    private static let sessionColumns = SQLQuery(unsafeRaw: """
        s.id_hash, s.device, s.created_at AS session_created_at, s.last_seen_at, s.expires_at AS session_expires_at
        """)

    /// Stores a new scanner access for `eventID`, found later by `codeHash`; `.conflict` if the hash exists.
    public func createScannerAccess(
        eventID: String, name: String, codeHash: [UInt8], createdBy: String, now: Date, expiresAt: Date
    ) throws -> ScannerAccess {
        try execute("""
            INSERT INTO scanner_access (event_id, name, code_hash, created_by, created_at, expires_at)
            VALUES (\(eventID), \(name), \(codeHash), \(createdBy), \(now.storageMillis), \(expiresAt.storageMillis))
            """)
        guard let access = try scannerAccess(codeHash: codeHash) else { throw StorageError(.backend, "insert returned no row") }
        return access
    }

    /// The access whose link has this code hash, revoked or expired ones included (the sign-in
    /// page says which).
    public func scannerAccess(codeHash: [UInt8]) throws -> ScannerAccess? {
        try first("SELECT \(Self.accessColumns) FROM scanner_access a WHERE a.code_hash = \(codeHash)").map(ScannerAccess.init(row:))
    }

    /// The accesses of `eventID`, newest first, revoked and expired ones included.
    public func scannerAccesses(eventID: String) throws -> [ScannerAccess] {
        try execute("""
            SELECT \(Self.accessColumns) FROM scanner_access a WHERE a.event_id = \(eventID) ORDER BY a.created_at DESC, a.id DESC
            """).map(ScannerAccess.init(row:))
    }

    /// How many accesses of `eventID` are usable at `now`.
    public func usableScannerAccessCount(eventID: String, now: Date) throws -> Int {
        try first("""
            SELECT COUNT(*) AS n FROM scanner_access
            WHERE event_id = \(eventID) AND revoked_at IS NULL AND expires_at > \(now.storageMillis)
            """)?.int("n") ?? 0
    }

    /// Revokes the access `id` of `eventID` and deletes its sessions; whether an unrevoked one was
    /// there. One already revoked stays as it was.
    @discardableResult
    public func revokeScannerAccess(id: Int64, eventID: String, now: Date) throws -> Bool {
        try transaction {
            let revoked = try execute("""
                UPDATE scanner_access SET revoked_at = \(now.storageMillis)
                WHERE id = \(id) AND event_id = \(eventID) AND revoked_at IS NULL RETURNING id
                """).count > 0
            if revoked { try execute("DELETE FROM scanner_sessions WHERE access_id = \(id)") }
            return revoked
        }
    }

    /// Stores a new session of the access `accessID`, valid until `expiresAt`, and ends the
    /// access's oldest sessions beyond `keepingNewest`.
    public func createScannerSession(idHash: [UInt8], accessID: Int64, device: String, now: Date, expiresAt: Date, keepingNewest keep: Int) throws {
        try transaction {
            try execute("""
                INSERT INTO scanner_sessions (id_hash, access_id, device, created_at, last_seen_at, expires_at)
                VALUES (\(idHash), \(accessID), \(device), \(now.storageMillis), \(now.storageMillis), \(expiresAt.storageMillis))
                """)
            try execute("""
                DELETE FROM scanner_sessions WHERE access_id = \(accessID) AND id_hash NOT IN (
                    SELECT id_hash FROM scanner_sessions WHERE access_id = \(accessID) ORDER BY created_at DESC, id_hash DESC LIMIT \(keep))
                """)
        }
    }

    /// The session with this hash if it and its access are valid at `now`.
    public func scannerSession(idHash: [UInt8], now: Date) throws -> ScannerSession? {
        try first("""
            SELECT \(Self.sessionColumns), \(Self.accessColumns)
            FROM scanner_sessions s JOIN scanner_access a ON a.id = s.access_id
            WHERE s.id_hash = \(idHash) AND s.expires_at > \(now.storageMillis) AND a.expires_at > \(now.storageMillis) AND a.revoked_at IS NULL
            """).map(ScannerSession.init(row:))
    }

    /// The unexpired sessions of `eventID`'s usable accesses, newest first (for the organizer's list).
    public func scannerSessions(eventID: String, now: Date) throws -> [ScannerSession] {
        try execute("""
            SELECT \(Self.sessionColumns), \(Self.accessColumns)
            FROM scanner_sessions s JOIN scanner_access a ON a.id = s.access_id
            WHERE a.event_id = \(eventID) AND s.expires_at > \(now.storageMillis) AND a.expires_at > \(now.storageMillis) AND a.revoked_at IS NULL
            ORDER BY s.created_at DESC, s.id_hash DESC
            """).map(ScannerSession.init(row:))
    }

    /// Records that the session was used at `now`, unless it was within `interval` seconds.
    public func touchScannerSession(idHash: [UInt8], now: Date, interval: TimeInterval) throws {
        try execute("""
            UPDATE scanner_sessions SET last_seen_at = \(now.storageMillis)
            WHERE id_hash = \(idHash) AND last_seen_at < \(now.addingTimeInterval(-interval).storageMillis)
            """)
    }

    /// Deletes up to `limit` door-staff sessions that expired at or before `cutoff` (a session
    /// never outlives its access); returns how many.
    public func deleteExpiredScannerSessions(before cutoff: Date, limit: Int) throws -> Int {
        try execute("""
            DELETE FROM scanner_sessions WHERE id_hash IN (
                SELECT id_hash FROM scanner_sessions WHERE expires_at <= \(cutoff.storageMillis) ORDER BY expires_at LIMIT \(limit))
            RETURNING access_id
            """).count
    }

    /// Deletes the session with this hash (signing out); whether there was one.
    @discardableResult
    public func deleteScannerSession(idHash: [UInt8]) throws -> Bool {
        try execute("DELETE FROM scanner_sessions WHERE id_hash = \(idHash) RETURNING access_id").count > 0
    }
}

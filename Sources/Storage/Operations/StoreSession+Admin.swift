public import Foundation

extension AdminOperations {
    private static let adminTokenColumns = SQLQuery(unsafeRaw: "id, name, role, token_hash, created_at, revoked_at")

    /// Stores a new admin token by its hash; `.conflict` if the hash exists or an active token
    /// has this name.
    public func createAdminToken(name: String, role: AdminRole = .admin, tokenHash: [UInt8], now: Date) throws -> AdminToken {
        guard let row = try first("""
            INSERT INTO admin_tokens (name, role, token_hash, created_at) VALUES (\(name), \(role.rawValue), \(tokenHash), \(now.storageMillis))
            RETURNING \(Self.adminTokenColumns)
            """)
        else { throw StorageError(.backend, "insert returned no row") }
        return try AdminToken(row: row)
    }

    /// The unrevoked token with this hash, if any.
    public func adminToken(tokenHash: [UInt8]) throws -> AdminToken? {
        try first("""
            SELECT \(Self.adminTokenColumns) FROM admin_tokens WHERE token_hash = \(tokenHash) AND revoked_at IS NULL
            """).map(AdminToken.init(row:))
    }

    /// Every token, revoked ones included, oldest first.
    public func adminTokens() throws -> [AdminToken] {
        try execute("SELECT \(Self.adminTokenColumns) FROM admin_tokens ORDER BY id").map(AdminToken.init(row:))
    }

    /// Revokes one active token: the one with this numeric id if there is one, otherwise the one
    /// with this name (names are unique among active tokens). Returns how many were revoked (0 or 1).
    @discardableResult
    public func revokeAdminToken(idOrName: String, now: Date) throws -> Int {
        try transaction {
            let byID = try Int64(idOrName).map { id in
                try execute("UPDATE admin_tokens SET revoked_at = \(now.storageMillis) WHERE id = \(id) AND revoked_at IS NULL RETURNING id").count
            } ?? 0
            if byID > 0 { return byID }
            return try execute("""
                UPDATE admin_tokens SET revoked_at = \(now.storageMillis) WHERE name = \(idOrName) AND revoked_at IS NULL RETURNING id
                """).count
        }
    }

    /// Appends lines from `/v1/log` and keeps only the newest `keepNewest` lines overall.
    public func appendDeviceLogs(_ messages: [String], peer: String?, keepNewest: Int, now: Date) throws {
        guard !messages.isEmpty else { return }
        let values = SQLQuery.joined(messages.map { "(\($0), \(peer), \(now.storageMillis))" }, separator: ", ")
        try transaction {
            try execute("INSERT INTO device_logs (message, peer, created_at) VALUES \(values)")
            try execute("""
                DELETE FROM device_logs WHERE id <= (
                    SELECT id FROM device_logs ORDER BY id DESC LIMIT 1 OFFSET \(max(keepNewest, 0)))
                """)
        }
    }
}

public import Foundation
public import PassIdentifiers

/// What an admin token may do.
public enum AdminRole: String, Sendable, Equatable, CaseIterable {
    /// Everything.
    case admin
    /// Read only: every `GET` of the admin API.
    case viewer
    /// Check-in only: the routes that declare this role, none other.
    case scanner
}

/// An administrator bearer token, stored hashed. Names are unique among active tokens.
public struct AdminToken: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var role: AdminRole
    public var tokenHash: [UInt8]
    public var createdAt: Date
    public var revokedAt: Date?

    init(row: SQLRow) throws {
        id = try row.int64("id")
        name = try row.string("name")
        // The column's CHECK admits only the known roles; anything else is read as the least powerful.
        role = AdminRole(rawValue: try row.string("role")) ?? .scanner
        tokenHash = try row.bytes("token_hash")
        createdAt = try row.date("created_at")
        revokedAt = try row.optionalDate("revoked_at")
    }
}

/// The outcome of one push, for delivery statistics.
public struct PushLogEntry: Sendable, Equatable {
    /// A hash of the push token (never the token itself).
    public var tokenHash: String
    public var passTypeIdentifier: PassTypeIdentifier
    /// The HTTP status APNs answered (0 when no answer arrived).
    public var status: Int
    public var reason: String?
    public var apnsID: String?
    public var latencyMilliseconds: Int64
    public var createdAt: Date
    /// What the dispatcher did with the attempt: `delivered`, `logged` (`APNS_MODE=log`, not
    /// sent), `pruned`, `retried`, `failed` or `halted`; nil for entries written before it was kept.
    public var outcome: String?

    public init(
        tokenHash: String, passTypeIdentifier: PassTypeIdentifier, status: Int, reason: String? = nil, apnsID: String? = nil,
        latencyMilliseconds: Int64, createdAt: Date, outcome: String? = nil
    ) {
        self.tokenHash = tokenHash
        self.passTypeIdentifier = passTypeIdentifier
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.latencyMilliseconds = latencyMilliseconds
        self.createdAt = createdAt
        self.outcome = outcome
    }
}

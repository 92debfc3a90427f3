public import Foundation

/// Door staff's access to one event's scanner page, opened by a sign-in link whose code is stored
/// hashed; valid until `expiresAt` unless revoked.
public struct ScannerAccess: Sendable, Equatable {
    public var id: Int64
    public var eventID: String
    /// Who it is for, as the organizer named it ("North gate – Sam"); check-ins record it.
    public var name: String
    /// The admin token's name that created it.
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?

    /// Whether its link and sessions work at `now`.
    public func isUsable(at now: Date) -> Bool {
        revokedAt == nil && expiresAt > now
    }

    init(row: SQLRow) throws {
        id = try row.int64("access_id")
        eventID = try row.string("event_id")
        name = try row.string("access_name")
        createdBy = try row.string("created_by")
        createdAt = try row.date("access_created_at")
        expiresAt = try row.date("access_expires_at")
        revokedAt = try row.optionalDate("revoked_at")
    }
}

/// A phone signed in through a scanner access.
public struct ScannerSession: Sendable, Equatable {
    public var idHash: [UInt8]
    public var access: ScannerAccess
    /// What the phone's browser said it is (shortened), for the organizer's list.
    public var device: String
    public var createdAt: Date
    public var lastSeenAt: Date
    public var expiresAt: Date

    init(row: SQLRow) throws {
        idHash = try row.bytes("id_hash")
        access = try ScannerAccess(row: row)
        device = try row.string("device")
        createdAt = try row.date("session_created_at")
        lastSeenAt = try row.date("last_seen_at")
        expiresAt = try row.date("session_expires_at")
    }
}

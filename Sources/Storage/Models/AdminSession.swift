public import Foundation

/// A signed-in dashboard session, found by the hash of its id (the cookie's value), with the
/// admin token it was opened with: its role, and whether it is still valid.
public struct AdminSession: Sendable, Equatable {
    public var idHash: [UInt8]
    public var token: AdminToken
    public var createdAt: Date
    public var expiresAt: Date
}

public import Foundation

/// A registration deleted because APNs answered that its push token is dead (410) or not usable
/// for this pass type (400 `BadDeviceToken`, `DeviceTokenNotForTopic`). Kept per pass, newest
/// first, at most `keptPerPass` of them, for the ticket's admin view.
public struct RegistrationPrune: Sendable, Equatable {
    /// How many prunes each pass keeps; adding one more drops the oldest.
    public static let keptPerPass = 20

    /// A hash of the push token (never the token itself), as in the push log.
    public var tokenHash: String
    /// APNs's HTTP status (410 or 400).
    public var status: Int
    /// APNs's reason, e.g. `DeviceTokenNotForTopic`.
    public var reason: String
    public var prunedAt: Date

    public init(tokenHash: String, status: Int, reason: String, prunedAt: Date) {
        self.tokenHash = tokenHash
        self.status = status
        self.reason = reason
        self.prunedAt = prunedAt
    }
}

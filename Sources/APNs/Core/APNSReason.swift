/// Apple's `reason` strings from APNs error responses; new ones decode as `.unknown(text)`.
public enum APNSReason: Sendable, Equatable, Hashable, CustomStringConvertible {
    case badCollapseID, badDeviceToken, badExpirationDate, badMessageID, badPriority, badTopic
    case deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken
    case missingTopic, payloadEmpty, topicDisallowed
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden
    case invalidProviderToken, missingProviderToken, unrelatedKeyIDInToken, badEnvironmentKeyInToken
    case badPath, methodNotAllowed, expiredToken, unregistered, payloadTooLarge
    case tooManyProviderTokenUpdates, tooManyRequests, internalServerError, serviceUnavailable, shutdown
    case unknown(String)

    private static let table: [(APNSReason, String)] = [
        (.badCollapseID, "BadCollapseId"), (.badDeviceToken, "BadDeviceToken"),
        (.badExpirationDate, "BadExpirationDate"), (.badMessageID, "BadMessageId"),
        (.badPriority, "BadPriority"), (.badTopic, "BadTopic"),
        (.deviceTokenNotForTopic, "DeviceTokenNotForTopic"), (.duplicateHeaders, "DuplicateHeaders"),
        (.idleTimeout, "IdleTimeout"), (.invalidPushType, "InvalidPushType"),
        (.missingDeviceToken, "MissingDeviceToken"), (.missingTopic, "MissingTopic"),
        (.payloadEmpty, "PayloadEmpty"), (.topicDisallowed, "TopicDisallowed"),
        (.badCertificate, "BadCertificate"), (.badCertificateEnvironment, "BadCertificateEnvironment"),
        (.expiredProviderToken, "ExpiredProviderToken"), (.forbidden, "Forbidden"),
        (.invalidProviderToken, "InvalidProviderToken"), (.missingProviderToken, "MissingProviderToken"),
        (.unrelatedKeyIDInToken, "UnrelatedKeyIdInToken"), (.badEnvironmentKeyInToken, "BadEnvironmentKeyInToken"),
        (.badPath, "BadPath"), (.methodNotAllowed, "MethodNotAllowed"), (.expiredToken, "ExpiredToken"),
        (.unregistered, "Unregistered"), (.payloadTooLarge, "PayloadTooLarge"),
        (.tooManyProviderTokenUpdates, "TooManyProviderTokenUpdates"), (.tooManyRequests, "TooManyRequests"),
        (.internalServerError, "InternalServerError"), (.serviceUnavailable, "ServiceUnavailable"),
        (.shutdown, "Shutdown"),
    ]

    /// Decodes Apple's spelling (e.g. `BadDeviceToken`); anything else is kept as `.unknown`.
    public init(rawValue: String) {
        self = Self.table.first(where: { $0.1 == rawValue })?.0 ?? .unknown(rawValue)
    }

    /// Apple's spelling of the reason.
    public var rawValue: String {
        if case .unknown(let text) = self { return text }
        return Self.table.first(where: { $0.0 == self })?.1 ?? ""
    }

    public var description: String { rawValue }
}

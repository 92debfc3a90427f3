/// Why a save or delete callback was not accepted. `code` is the wire name of the reason (the
/// callback endpoint's error code and the label of its refusal counter).
public struct CallbackRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, CaseIterable {
        /// The body, the intermediate key or the signed message is not what the protocol sends.
        case malformed
        /// `protocolVersion` is not `ECv2SigningOnly`.
        case unsupportedProtocol = "unsupported_protocol"
        /// Google's key list holds no unexpired `ECv2SigningOnly` key.
        case unknownKey = "unknown_key"
        /// No root key verifies the intermediate key, or the intermediate key does not verify the
        /// message (for our issuer id).
        case badSignature = "bad_signature"
        /// The intermediate signing key expired.
        case keyExpired = "key_expired"
        /// The message's `expTimeMillis` has passed.
        case expired
        /// Google's keys could not be fetched (answered as 503: Google retries).
        case keysUnavailable = "keys_unavailable"
    }

    public let reason: Reason
    /// What was wrong, in words naming the field (never key material).
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var code: String { reason.rawValue }
    public var description: String { "\(code): \(message)" }
}

public import Foundation
import Certificates

/// Checks a save or delete callback as Google signs it (`ECv2SigningOnly`) and returns its message.
///
/// The body is `{protocolVersion, signature, intermediateSigningKey: {signedKey, signatures},
/// signedMessage}`. Google's root keys sign the intermediate key (any one signature by any one
/// unexpired root key will do), the intermediate key signs the message for us (the recipient id is
/// our issuer id), and the intermediate key and the message each carry an expiry. Every check comes
/// before the message is read: an unsigned message says nothing.
public struct CallbackVerifier: Sendable {
    public let recipientID: String
    public let rootKeys: RootKeys

    public init(recipientID: String, rootKeys: RootKeys) {
        self.recipientID = recipientID
        self.rootKeys = rootKeys
    }

    public func verify(_ body: [UInt8], now: Date) throws(CallbackRefusal) -> CallbackMessage {
        guard let envelope = JSONFields(body) else { throw CallbackRefusal(.malformed, "body: not a JSON object") }
        guard let version = envelope.string("protocolVersion") else { throw CallbackRefusal(.malformed, "protocolVersion: missing") }
        guard version == SignedString.protocolVersion else {
            throw CallbackRefusal(.unsupportedProtocol, "protocolVersion: only \(SignedString.protocolVersion) is accepted")
        }
        guard let intermediate = envelope.object("intermediateSigningKey"),
            let signedKey = intermediate.string("signedKey"), let keySignatures = intermediate.strings("signatures")
        else { throw CallbackRefusal(.malformed, "intermediateSigningKey: needs signedKey and signatures") }
        guard let signature = envelope.string("signature").flatMap(Self.base64) else {
            throw CallbackRefusal(.malformed, "signature: missing or not base64")
        }
        guard let signedMessage = envelope.string("signedMessage") else { throw CallbackRefusal(.malformed, "signedMessage: missing") }

        try verifyIntermediate(signedKey: signedKey, signatures: keySignatures.compactMap(Self.base64), now: now)
        guard let keyFields = JSONFields(signedKey), let keyValue = keyFields.string("keyValue").flatMap(Self.base64),
            let keyExpiration = keyFields.millis("keyExpiration")
        else { throw CallbackRefusal(.malformed, "intermediateSigningKey.signedKey: needs keyValue and keyExpiration") }
        guard keyExpiration > now else { throw CallbackRefusal(.keyExpired, "intermediateSigningKey: expired") }
        guard let key = try? P256PublicKey(der: keyValue) else {
            throw CallbackRefusal(.malformed, "intermediateSigningKey.signedKey: keyValue is not an ECDSA P-256 key")
        }
        let signed = SignedString.forMessage(signedMessage: signedMessage, recipient: recipientID)
        guard key.isValidSignature(signature, of: signed) else {
            throw CallbackRefusal(.badSignature, "signature: does not verify with the intermediate key")
        }
        return try Self.message(signedMessage, now: now)
    }

    private func verifyIntermediate(signedKey: String, signatures: [[UInt8]], now: Date) throws(CallbackRefusal) {
        let signed = SignedString.forIntermediateKey(signedKey: signedKey)
        func verifies(_ keys: [RootKeys.Key]) -> Bool {
            keys.contains { key in signatures.contains { key.publicKey.isValidSignature($0, of: signed) } }
        }
        var keys = try rootKeys.usable(now: now)
        if keys.isEmpty || !verifies(keys) {
            // Google may have rotated its keys since they were fetched.
            keys = try rootKeys.refreshed(now: now) ?? keys
        }
        guard !keys.isEmpty else { throw CallbackRefusal(.unknownKey, "intermediateSigningKey: no unexpired root key of Google's") }
        guard verifies(keys) else {
            throw CallbackRefusal(.badSignature, "intermediateSigningKey.signatures: none verifies with Google's root keys")
        }
    }

    private static func message(_ text: String, now: Date) throws(CallbackRefusal) -> CallbackMessage {
        guard let fields = JSONFields(text) else { throw CallbackRefusal(.malformed, "signedMessage: not a JSON object") }
        guard let classID = fields.string("classId"), let objectID = fields.string("objectId"),
            let nonce = fields.string("nonce"), !nonce.isEmpty, nonce.utf8.count <= 200
        else { throw CallbackRefusal(.malformed, "signedMessage: needs classId, objectId and nonce") }
        guard let type = fields.string("eventType").flatMap(CallbackMessage.EventType.init(rawValue:)) else {
            throw CallbackRefusal(.malformed, "signedMessage.eventType: must be save or del")
        }
        guard let expiresAt = fields.millis("expTimeMillis") else {
            throw CallbackRefusal(.malformed, "signedMessage.expTimeMillis: missing or not milliseconds")
        }
        guard expiresAt > now else { throw CallbackRefusal(.expired, "signedMessage: expired") }
        return CallbackMessage(classID: classID, objectID: objectID, eventType: type, nonce: nonce, expiresAt: expiresAt)
    }

    private static func base64(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text).map { [UInt8]($0) }
    }
}

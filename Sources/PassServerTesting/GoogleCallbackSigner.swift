package import Certificates
package import Foundation

/// Signs save and delete callbacks the way Google does (`ECv2SigningOnly`, sender
/// `GooglePayPasses`), with a root key and an intermediate key of its own, so that the server's
/// verifier is tested against a signer written apart from it. Variants make the refusals a real
/// sender could cause: a signature of another key, an expired message, an expired intermediate key.
package struct GoogleCallbackSigner: Sendable {
    /// What the intermediate key's signature, the message's signature or the times should get wrong.
    package enum Flaw: Sendable, Equatable {
        /// The message is signed by a key the root key never signed.
        case messageSignedByStranger
        /// The intermediate key is signed by a root key Google does not publish.
        case intermediateSignedByStranger
        /// The message is signed for another recipient (issuer id).
        case otherRecipient
        /// `expTimeMillis` has passed.
        case expiredMessage
        /// The intermediate key's `keyExpiration` has passed.
        case expiredIntermediate
    }

    package let root: PrivateKey
    package let intermediate: PrivateKey
    /// Until when the root key is published as valid.
    package var rootExpiration: Date
    package var recipient: String

    package init(recipient: String, rootExpiration: Date = Date().addingTimeInterval(30 * 86_400)) throws {
        self.recipient = recipient
        self.rootExpiration = rootExpiration
        root = try P256.generate()
        intermediate = try P256.generate()
    }

    /// Google's key list naming this signer's root key (and, when given, other entries first).
    package func keysDocument(protocolVersion: String = "ECv2SigningOnly") throws -> [UInt8] {
        let entry: [String: String] = [
            "keyValue": Data(try P256.publicKeyDER(of: root)).base64EncodedString(),
            "protocolVersion": protocolVersion,
            "keyExpiration": Self.millis(rootExpiration),
        ]
        return [UInt8](try JSONSerialization.data(withJSONObject: ["keys": [entry]], options: [.sortedKeys]))
    }

    /// The body Google would POST for `eventType` (`save` or `del`) of the object.
    package func callback(
        classID: String, objectID: String, eventType: String, nonce: String = UUID().uuidString,
        now: Date = Date(), flaw: Flaw? = nil
    ) throws -> [UInt8] {
        let expiresAt = flaw == .expiredMessage ? now.addingTimeInterval(-60) : now.addingTimeInterval(3_600)
        let message: [String: Any] = [
            "classId": classID, "objectId": objectID, "eventType": eventType, "nonce": nonce,
            "expTimeMillis": Self.millis(expiresAt),
        ]
        let signedMessage = String(decoding: try JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]), as: UTF8.self)
        let keyExpiration = flaw == .expiredIntermediate ? now.addingTimeInterval(-60) : now.addingTimeInterval(86_400)
        let signedKey = String(decoding: try JSONSerialization.data(withJSONObject: [
            "keyValue": Data(try P256.publicKeyDER(of: intermediate)).base64EncodedString(),
            "keyExpiration": Self.millis(keyExpiration),
        ], options: [.sortedKeys]), as: UTF8.self)

        let rootSigner = flaw == .intermediateSignedByStranger ? try P256.generate() : root
        let keySignature = try P256.sign(Self.parts(["GooglePayPasses", "ECv2SigningOnly", signedKey]), with: rootSigner)
        let messageSigner = flaw == .messageSignedByStranger ? try P256.generate() : intermediate
        let messageRecipient = flaw == .otherRecipient ? recipient + "9" : recipient
        let messageSignature = try P256.sign(Self.parts(["GooglePayPasses", messageRecipient, "ECv2SigningOnly", signedMessage]), with: messageSigner)

        let body: [String: Any] = [
            "protocolVersion": "ECv2SigningOnly",
            "signature": Data(messageSignature).base64EncodedString(),
            "intermediateSigningKey": ["signedKey": signedKey, "signatures": [Data(keySignature).base64EncodedString()]],
            "signedMessage": signedMessage,
        ]
        return [UInt8](try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]))
    }

    /// Each part as its length (4 bytes, little-endian) and its UTF-8 bytes.
    private static func parts(_ parts: [String]) -> [UInt8] {
        parts.flatMap { part -> [UInt8] in
            let count = part.utf8.count
            return (0..<4).map { UInt8((count >> (8 * $0)) & 0xFF) } + Array(part.utf8)
        }
    }

    private static func millis(_ date: Date) -> String {
        String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }
}

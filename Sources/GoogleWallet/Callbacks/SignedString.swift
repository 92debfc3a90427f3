/// The bytes a signature of `ECv2SigningOnly` covers: each part as a 4-byte little-endian length
/// followed by its UTF-8 bytes, in order.
///
/// - The intermediate key's signatures cover sender id, protocol version, signed key.
/// - The message's signature covers sender id, recipient id, protocol version, signed message.
public enum SignedString {
    /// Google's sender id for pass callbacks.
    public static let sender = "GooglePayPasses"
    public static let protocolVersion = "ECv2SigningOnly"

    public static func lengthPrefixed(_ parts: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            let bytes = Array(part.utf8)
            let length = UInt32(truncatingIfNeeded: bytes.count)
            out += [UInt8(length & 0xFF), UInt8((length >> 8) & 0xFF), UInt8((length >> 16) & 0xFF), UInt8(length >> 24)]
            out += bytes
        }
        return out
    }

    public static func forIntermediateKey(signedKey: String, protocolVersion: String = protocolVersion) -> [UInt8] {
        lengthPrefixed([sender, protocolVersion, signedKey])
    }

    public static func forMessage(signedMessage: String, recipient: String, protocolVersion: String = protocolVersion) -> [UInt8] {
        lengthPrefixed([sender, recipient, protocolVersion, signedMessage])
    }
}

import Certificates
import Foundation

/// Random tokens as URL-safe text. The primitives under them (hashing, HMAC, random bytes, hex)
/// live in the Certificates module, the one owner of OpenSSL.
package enum Crypto {
    /// URL-safe, unpadded base64 alphabet text of `count` random bytes.
    package static func randomToken(bytes count: Int) -> String {
        base64URL(SecureRandom.bytes(count))
    }

    /// Unpadded base64url (RFC 4648 §5). Written out rather than derived from Foundation's
    /// base64 with three string replacements: tokens are made for every ticket of a bulk import.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = base64URLAlphabet
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 2 < bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(value >> 18)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int(value >> 18)])
            out.append(alphabet[Int(value >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(value >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}

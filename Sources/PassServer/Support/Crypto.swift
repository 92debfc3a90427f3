import Certificates
import Foundation

/// Random tokens as URL-safe text. The primitives under them (hashing, HMAC, random bytes, hex)
/// live in the Certificates module, the one owner of OpenSSL.
enum Crypto {
    /// URL-safe, unpadded base64 alphabet text of `count` random bytes.
    static func randomToken(bytes count: Int) -> String {
        base64URL(SecureRandom.bytes(count))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

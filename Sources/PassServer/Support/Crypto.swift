import ByteEncoding
import Certificates
import Foundation

/// Random tokens as URL-safe text. The primitives under them (hashing, HMAC, random bytes, hex)
/// live in the Certificates module, the one owner of OpenSSL.
package enum Crypto {
    /// URL-safe, unpadded base64 alphabet text of `count` random bytes.
    package static func randomToken(bytes count: Int) -> String {
        Base64URL.encode(SecureRandom.bytes(count))
    }
}

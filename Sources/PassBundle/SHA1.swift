import ByteEncoding
import Certificates

/// manifest.json's value for a file: the lowercase hex SHA-1 of its bytes.
enum SHA1 {
    /// Throws `.signingFailed` when OpenSSL cannot hash: a manifest never carries an empty hash.
    static func hex(_ bytes: [UInt8]) throws(PassBundleError) -> String {
        do {
            return Hex.encode(try Digest.sha1().hash(bytes))
        } catch {
            throw PassBundleError(signing: error)
        }
    }
}

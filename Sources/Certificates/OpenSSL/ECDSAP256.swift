// ECDSA over the NIST P-256 curve with SHA-256: keys as X.509 SubjectPublicKeyInfo DER (the
// form Google publishes its signing keys in) and signatures as DER-encoded (r, s).
//
// Threading: keys are only read after init; every call makes its own EVP_MD_CTX.

import COpenSSL

/// A P-256 public key that checks ECDSA-SHA256 signatures.
package final class P256PublicKey: @unchecked Sendable {
    // Safe because the EVP_PKEY is never modified after init; verifying makes its own context.

    private let pointer: OpaquePointer

    /// Parses SubjectPublicKeyInfo DER; refuses any key that is not an EC key on P-256.
    package init(der: [UInt8]) throws(OpenSSLError) {
        OpenSSLErrorQueue.clear()
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        let key = try check(parsed, "parse the public key")
        guard P256.isP256(key) else {
            EVP_PKEY_free(key)
            throw OpenSSLError(operation: "use a key that is not ECDSA P-256", queue: [])
        }
        pointer = key
    }

    deinit { EVP_PKEY_free(pointer) }

    /// True when `signature` (DER) is this key's ECDSA-SHA256 signature of `message`. Any
    /// malformed signature is simply not a valid one.
    package func isValidSignature(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        defer { OpenSSLErrorQueue.clear() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, pointer, nil) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}

/// P-256 private keys: generation, their public half, and signing.
package enum P256 {
    /// A fresh P-256 key pair.
    package static func generate() throws(OpenSSLError) -> PrivateKey {
        OpenSSLErrorQueue.clear()
        let context = try check(EVP_PKEY_CTX_new_from_name(nil, "EC", nil), "create an EC key context")
        defer { EVP_PKEY_CTX_free(context) }
        try check(EVP_PKEY_keygen_init(context) > 0, "start EC key generation")
        try check(EVP_PKEY_CTX_set_group_name(context, "P-256") > 0, "select the P-256 curve")
        var key: OpaquePointer?
        try check(EVP_PKEY_generate(context, &key) > 0, "generate a P-256 key")
        return PrivateKey(owning: try check(key, "generate a P-256 key"))
    }

    /// The SubjectPublicKeyInfo DER of the key's public half.
    package static func publicKeyDER(of key: PrivateKey) throws(OpenSSLError) -> [UInt8] {
        try derEncoding(of: "the public key") { i2d_PUBKEY(key.pointer, $0) }
    }

    /// The ECDSA-SHA256 signature (DER) of `message` by `key`.
    package static func sign(_ message: [UInt8], with key: PrivateKey) throws(OpenSSLError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        let context = try check(EVP_MD_CTX_new(), "create a signing context")
        defer { EVP_MD_CTX_free(context) }
        try check(EVP_DigestSignInit_ex(context, nil, "SHA256", nil, nil, key.pointer, nil) == 1, "start ECDSA signing")
        var length = 0
        try check(EVP_DigestSign(context, nil, &length, message, message.count) == 1, "size the ECDSA signature")
        var signature = [UInt8](repeating: 0, count: length)
        try check(EVP_DigestSign(context, &signature, &length, message, message.count) == 1, "make an ECDSA signature")
        return Array(signature.prefix(length))
    }

    static func isP256(_ key: OpaquePointer) -> Bool {
        guard EVP_PKEY_is_a(key, "EC") == 1 else { return false }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return false }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256"
    }
}

// Hashing and HMAC through OpenSSL's EVP interface, for pass manifests, CMS signatures and the
// application's token hashes.
//
// Threading: a Digest is fetched once per process and only read afterwards; EVP_Digest and HMAC
// make their own contexts per call, so one Digest serves every thread.

import COpenSSL

/// A message digest algorithm (an `EVP_MD` fetched from OpenSSL's default provider).
package final class Digest: @unchecked Sendable {
    // Safe because the EVP_MD is fetched in init, never modified, and freed only in deinit;
    // OpenSSL 3 allows fetched algorithms to be used from any number of threads.

    /// The `EVP_MD *`, valid while this object lives (for calls such as `CMS_add1_signer`).
    package let pointer: OpaquePointer
    /// Bytes of output: 20 for SHA-1, 32 for SHA-256.
    package let size: Int

    /// Fetches the algorithm called `name` (`SHA256`), optionally restricted by an OpenSSL
    /// property query (`provider=default`); throws when no loaded provider offers it.
    package init(name: String, properties: String? = nil) throws(OpenSSLError) {
        pointer = try check(EVP_MD_fetch(nil, name, properties), "fetch the \(name) digest")
        size = Int(EVP_MD_get_size(pointer))
    }

    deinit { EVP_MD_free(pointer) }

    private static let sha1Fetch = Result { () throws(OpenSSLError) in try Digest(name: "SHA1") }
    private static let sha256Fetch = Result { () throws(OpenSSLError) in try Digest(name: "SHA256") }

    /// SHA-1, as manifest.json wants it.
    package static func sha1() throws(OpenSSLError) -> Digest { try sha1Fetch.get() }

    /// SHA-256.
    package static func sha256() throws(OpenSSLError) -> Digest { try sha256Fetch.get() }

    /// The digest of `bytes`.
    package func hash(_ bytes: UnsafeRawBufferPointer) throws(OpenSSLError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        try check(EVP_Digest(bytes.baseAddress, bytes.count, &output, &length, pointer, nil) == 1, "hash \(bytes.count) bytes")
        return Array(output.prefix(Int(length)))
    }

    /// The digest of `bytes`.
    package func hash(_ bytes: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(OpenSSLError) in try hash(raw) } }
        return try result.get()
    }

    /// HMAC of `message` under `key` with this digest.
    package func authenticationCode(key: [UInt8], message: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                HMAC(pointer, keyBytes.baseAddress, Int32(keyBytes.count), messageBytes.baseAddress, messageBytes.count, &output, &length)
            }
        }
        try check(result != nil, "compute an HMAC of \(message.count) bytes")
        return Array(output.prefix(Int(length)))
    }
}

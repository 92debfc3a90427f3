import COpenSSL

/// An owned `EVP_PKEY_CTX` set up once for RSA PKCS#1 v1.5 signatures over precomputed digests.
///
/// Setting a context up costs algorithm look-ups; signing with a ready one costs only the RSA
/// operation. A context serves one thread at a time: keep spares in a pool behind a lock.
package final class RSASigningContext: @unchecked Sendable {
    // Safe because a context is used by one thread at a time: its owner hands it from thread to
    // thread only through a lock (the pass signer's pool), never to two threads at once.

    private let pointer: OpaquePointer

    /// A context signing with `key`, hashes made with `digest`.
    package init(key: PrivateKey, digest: Digest) throws(OpenSSLError) {
        OpenSSLErrorQueue.clear()
        let context = try check(EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil), "create a signing context")
        do throws(OpenSSLError) {
            try check(EVP_PKEY_sign_init(context) == 1, "start RSA signing")
            try check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1, "select PKCS#1 v1.5 padding")
            try check(EVP_PKEY_CTX_set_signature_md(context, digest.pointer) == 1, "select the signature digest")
        } catch {
            EVP_PKEY_CTX_free(context)
            throw error
        }
        pointer = context
    }

    deinit { EVP_PKEY_CTX_free(pointer) }

    /// Signs `digest` into `signature`, which must be exactly the key's signature size (the RSA
    /// modulus length: PKCS#1 v1.5 output always has it).
    package func sign(digest: [UInt8], into signature: UnsafeMutableRawBufferPointer) throws(OpenSSLError) {
        var length = signature.count
        let status = EVP_PKEY_sign(pointer, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, digest, digest.count)
        try check(status == 1 && length == signature.count, "make an RSA signature")
    }
}

// An owned OpenSSL EVP_PKEY: parsing (PEM, optionally encrypted, or PKCS#8 DER) and export.

import COpenSSL
import Foundation

/// Copies the password passed as `user` (a C string) into OpenSSL's buffer; with no password it
/// fails instead of prompting on the terminal, which OpenSSL's default callback would do.
private let passwordCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { buffer, size, _, user in
    guard let buffer, let user else { return -1 }
    let password = user.assumingMemoryBound(to: CChar.self)
    let length = Int32(strlen(password))
    guard length <= size else { return -1 }
    memcpy(buffer, password, Int(length))
    return length
}

/// One private key; frees its `EVP_PKEY` in deinit.
package final class PrivateKey: @unchecked Sendable {
    // Safe because the key is never modified after init, and OpenSSL 3 documents concurrent
    // read-only use of one EVP_PKEY (signing makes its own EVP_PKEY_CTX; RSA blinding is locked).

    /// The `EVP_PKEY *`, valid while this object lives.
    package let pointer: OpaquePointer

    /// Takes ownership of an EVP_PKEY the caller allocated or up-referenced.
    package init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// Parses PKCS#8 (or traditional) DER.
    package convenience init(der: [UInt8]) throws(CertificateError) {
        OpenSSLErrorQueue.clear()
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        do throws(OpenSSLError) {
            self.init(owning: try check(parsed, "parse the private key"))
        } catch {
            throw CertificateError(.unreadable, "private key bytes are not a DER private key", openSSL: error)
        }
    }

    /// Parses a PEM (possibly encrypted) or DER key file's contents.
    convenience init(pemOrDER bytes: [UInt8], password: String?, path: String) throws(CertificateError) {
        guard looksLikePEM(bytes) else {
            do { try self.init(der: bytes) } catch {
                throw CertificateError(.unreadable, "private key file \(path) holds no key in PEM or DER form", path: path, openSSLErrors: error.openSSLErrors)
            }
            return
        }
        let encrypted = String(decoding: bytes, as: UTF8.self).contains("ENCRYPTED")
        OpenSSLProviders.ensureLoaded()
        OpenSSLErrorQueue.clear()
        let bio: MemoryBIO
        do { bio = try MemoryBIO(bytes: bytes) } catch {
            throw CertificateError(.unreadable, "cannot buffer private key file \(path)", path: path, openSSL: error)
        }
        let parsed: OpaquePointer? = withOptionalCString(password) {
            PEM_read_bio_PrivateKey(bio.pointer, nil, passwordCallback, $0.map { UnsafeMutableRawPointer(mutating: $0) })
        }
        guard let parsed else {
            let errors = OpenSSLErrorQueue.drain()
            if encrypted {
                let problem = password == nil ? "is encrypted and no password was given" : "could not be decrypted: wrong password"
                throw CertificateError(.badPassword, "private key file \(path) \(problem)", path: path, openSSLErrors: errors)
            }
            throw CertificateError(.unreadable, "private key file \(path) holds no readable PEM private key", path: path, openSSLErrors: errors)
        }
        self.init(owning: parsed)
    }

    /// Unencrypted PKCS#8 DER.
    package func pkcs8DER() throws(OpenSSLError) -> [UInt8] {
        let bio = try MemoryBIO()
        try check(i2d_PKCS8PrivateKey_bio(bio.pointer, pointer, nil, nil, 0, nil, nil) == 1, "encode the private key as PKCS#8")
        return bio.contents
    }

    /// PKCS#8 PEM, encrypted with AES-256-CBC when a password is given.
    func pkcs8PEM(password: String?) throws(OpenSSLError) -> [UInt8] {
        let bio = try MemoryBIO()
        let written: Int32 = if let password {
            password.withCString { cString in
                PEM_write_bio_PKCS8PrivateKey(bio.pointer, pointer, EVP_aes_256_cbc(), cString, Int32(strlen(cString)), nil, nil)
            }
        } else {
            PEM_write_bio_PKCS8PrivateKey(bio.pointer, pointer, nil, nil, 0, nil, nil)
        }
        try check(written == 1, "write the private key as PEM")
        return bio.contents
    }

    /// True when this key is the private half of the certificate's public key.
    func matches(_ certificate: X509Certificate) -> Bool {
        guard let publicKey = X509_get0_pubkey(certificate.pointer) else { return false }
        let equal = EVP_PKEY_eq(publicKey, pointer) == 1
        OpenSSLErrorQueue.clear()
        return equal
    }

    /// A fresh RSA key.
    static func generateRSA(bits: Int32 = 2048) throws(OpenSSLError) -> PrivateKey {
        OpenSSLErrorQueue.clear()
        let context = try check(EVP_PKEY_CTX_new_from_name(nil, "RSA", nil), "create an RSA key context")
        defer { EVP_PKEY_CTX_free(context) }
        try check(EVP_PKEY_keygen_init(context) > 0, "start RSA key generation")
        try check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, bits) > 0, "set the RSA key size")
        var key: OpaquePointer?
        try check(EVP_PKEY_generate(context, &key) > 0, "generate an RSA key")
        return PrivateKey(owning: try check(key, "generate an RSA key"))
    }
}

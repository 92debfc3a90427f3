// RSA keys of test service accounts and RS256 verification, for the fake Google Wallet. Written
// against OpenSSL directly, apart from the code that signs, so the two check each other.

import COpenSSL
import Certificates
import Foundation

/// A fresh RSA-2048 key pair of a test service account: the private key as PKCS#8 PEM (what a
/// service account's JSON key file holds) and the public key as SubjectPublicKeyInfo PEM.
public struct FakeGoogleServiceAccountKey: Sendable {
    public let privateKeyPEM: String
    public let publicKeyPEM: String

    /// Generates a new key (a fraction of a second).
    public static func generate() throws -> FakeGoogleServiceAccountKey {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw FakeGoogleWalletError("cannot create an RSA key context") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) > 0, EVP_PKEY_CTX_set_rsa_keygen_bits(context, 2048) > 0, EVP_PKEY_generate(context, &key) > 0,
            let key
        else { throw FakeGoogleWalletError("cannot generate an RSA key") }
        defer { EVP_PKEY_free(key) }
        let privateBIO = try MemoryBIO()
        let publicBIO = try MemoryBIO()
        guard PEM_write_bio_PKCS8PrivateKey(privateBIO.pointer, key, nil, nil, 0, nil, nil) == 1,
            PEM_write_bio_PUBKEY(publicBIO.pointer, key) == 1
        else { throw FakeGoogleWalletError("cannot write the RSA key as PEM") }
        return FakeGoogleServiceAccountKey(
            privateKeyPEM: String(decoding: privateBIO.contents, as: UTF8.self), publicKeyPEM: String(decoding: publicBIO.contents, as: UTF8.self)
        )
    }

    /// A P-256 key as PKCS#8 PEM: a key file whose key is not RSA.
    public static func ellipticCurvePrivateKeyPEM() throws -> String {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw FakeGoogleWalletError("cannot create an EC key context") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) > 0, EVP_PKEY_CTX_set_group_name(context, "prime256v1") > 0, EVP_PKEY_generate(context, &key) > 0,
            let key
        else { throw FakeGoogleWalletError("cannot generate an EC key") }
        defer { EVP_PKEY_free(key) }
        let bio = try MemoryBIO()
        guard PEM_write_bio_PKCS8PrivateKey(bio.pointer, key, nil, nil, 0, nil, nil) == 1 else { throw FakeGoogleWalletError("cannot write the EC key") }
        return String(decoding: bio.contents, as: UTF8.self)
    }
}

/// A public key that checks RS256 signatures.
final class FakeRS256Verifier: @unchecked Sendable {
    // Safe because the key is never modified after init; each verification makes its own context.
    private let key: OpaquePointer

    init(publicKeyPEM: String) throws {
        let bio = try MemoryBIO(bytes: Array(publicKeyPEM.utf8))
        guard let key = PEM_read_bio_PUBKEY(bio.pointer, nil, nil, nil) else { throw FakeGoogleWalletError("not a PEM public key") }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// True when `signature` is the RSASSA-PKCS1-v1_5 SHA-256 signature of `input` by this key.
    func verify(_ signature: [UInt8], of input: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            OpenSSLErrorQueue.clear()
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, input, input.count) == 1
    }
}

/// A failure of the fake's own set-up.
public struct FakeGoogleWalletError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

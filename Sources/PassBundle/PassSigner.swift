// Signs manifest.json as a detached CMS (PKCS#7) SignedData with the Pass Type ID key.
//
// Most signatures come from a SignatureTemplate (see that file): OpenSSL's CMS output for a probe,
// re-signed by patching its fixed-length fields. The full CMS_sign path remains for keys whose
// template does not reproduce CMS_sign exactly and for signing times from 2050 on.
//
// Threading: a PassSigner parses the key and certificates into OpenSSL objects once and never
// mutates them afterwards. OpenSSL 3 allows concurrent use of one EVP_PKEY and X509 for signing
// (each CMS_sign takes references and makes its own EVP_PKEY_CTX; RSA blinding is locked
// internally), and the template lends each thread its own EVP_PKEY_CTX from a pool, so one signer
// serves every thread. Signing blocks for about a millisecond of CPU: call it from a dedicated
// thread (the HTTP engine's), never from Swift's cooperative pool.

public import Certificates
import COpenSSL
public import Foundation

/// Owns the OpenSSL key and certificates of one signing identity.
public final class PassSigner: @unchecked Sendable {
    // Safe because the three pointers are written only in init, freed only in deinit, and
    // OpenSSL 3 documents concurrent read-only use of EVP_PKEY/X509 in signing as thread-safe.
    let key: OpaquePointer
    private let certificate: OpaquePointer
    private let intermediate: OpaquePointer
    /// SHA-256 fetched once: `EVP_sha256()` makes every CMS_sign look the algorithm up again.
    let digest: OpaquePointer
    /// The fast path (see SignatureTemplate.swift): nil when re-signing through it could not
    /// reproduce OpenSSL's own CMS output with this key.
    let template: SignatureTemplate?

    /// The certificate's UID: pass.json's passTypeIdentifier must equal it.
    public let passTypeIdentifier: String
    /// The certificate's OU: pass.json's teamIdentifier must equal it.
    public let teamIdentifier: String

    /// Parses the identity. Throws `.certificate` (underlying `CertificateError.wwdrMissing`)
    /// when the identity has no WWDR intermediate: Wallet rejects signatures without it.
    public init(identity: SigningIdentity) throws(PassBundleError) {
        let intermediateDER: [UInt8]
        do {
            intermediateDER = try identity.requireIntermediate()
        } catch {
            throw PassBundleError(.certificate, error.message, underlying: error)
        }
        guard let key = Self.parseKey(identity.privateKeyDER) else {
            throw PassBundleError(.certificate, "the signing identity's private key cannot be parsed")
        }
        guard let certificate = Self.parseCertificate(identity.certificateDER) else {
            EVP_PKEY_free(key)
            throw PassBundleError(.certificate, "the signing identity's certificate cannot be parsed")
        }
        guard let intermediate = Self.parseCertificate(intermediateDER) else {
            EVP_PKEY_free(key)
            X509_free(certificate)
            throw PassBundleError(.certificate, "the WWDR intermediate certificate cannot be parsed")
        }
        guard let digest = EVP_MD_fetch(nil, "SHA256", nil) else {
            EVP_PKEY_free(key)
            X509_free(certificate)
            X509_free(intermediate)
            throw PassBundleError(.signingFailed, "OpenSSL offers no SHA-256")
        }
        // Compute the cached extension data now, so concurrent signers only read it.
        _ = X509_check_purpose(certificate, -1, 0)
        _ = X509_check_purpose(intermediate, -1, 0)
        ERR_clear_error()
        self.key = key
        self.certificate = certificate
        self.intermediate = intermediate
        self.digest = digest
        passTypeIdentifier = identity.passTypeIdentifier
        teamIdentifier = identity.teamIdentifier
        let probe = try? Self.cmsSignature(
            SignatureTemplate.probeContent, signingTime: SignatureTemplate.probeTime,
            key: key, certificate: certificate, intermediate: intermediate, digest: digest
        )
        template = probe.flatMap { SignatureTemplate(probe: $0, key: key, digest: digest) }
        ERR_clear_error()
    }

    deinit {
        EVP_PKEY_free(key)
        X509_free(certificate)
        X509_free(intermediate)
        EVP_MD_free(digest)
    }

    /// A DER detached CMS signature over `content`: SHA-256, signingTime = `signingTime`, the
    /// signer certificate and the WWDR intermediate embedded (no root). The S/MIME capabilities
    /// attribute is left out: Wallet does not use it.
    public func sign(_ content: [UInt8], signingTime: Date = Date()) throws(PassBundleError) -> [UInt8] {
        ERR_clear_error()
        if let template, let signature = try template.sign(content, signingTime: signingTime) { return signature }
        return try signWithCMS(content, signingTime: signingTime)
    }

    /// The same signature, built by OpenSSL's CMS code from scratch.
    func signWithCMS(_ content: [UInt8], signingTime: Date) throws(PassBundleError) -> [UInt8] {
        try Self.cmsSignature(content, signingTime: signingTime, key: key, certificate: certificate, intermediate: intermediate, digest: digest)
    }

    private static func cmsSignature(
        _ content: [UInt8], signingTime: Date,
        key: OpaquePointer, certificate: OpaquePointer, intermediate: OpaquePointer, digest: OpaquePointer
    ) throws(PassBundleError) -> [UInt8] {
        let flags = UInt32(CMS_DETACHED | CMS_BINARY | CMS_NOSMIMECAP)
        guard let cms = CMS_sign(nil, nil, nil, nil, flags | UInt32(CMS_PARTIAL)) else { throw failure("cannot start the CMS structure") }
        defer { CMS_ContentInfo_free(cms) }
        guard let signer = CMS_add1_signer(cms, certificate, key, digest, flags | UInt32(CMS_PARTIAL)) else {
            throw failure("cannot add the signer")
        }
        guard let time = ASN1_TIME_set(nil, time_t(signingTime.timeIntervalSince1970.rounded(.down))) else { throw failure("cannot encode the signing time") }
        defer { ASN1_TIME_free(time) }
        guard CMS_signed_add1_attr_by_NID(signer, NID_pkcs9_signingTime, time.pointee.type, time, -1) == 1 else {
            throw failure("cannot add the signing time")
        }
        guard CMS_add1_cert(cms, intermediate) == 1 else { throw failure("cannot embed the WWDR intermediate") }
        // BIO_new_mem_buf does not copy: the BIO lives only inside the closure that pins `content`.
        let finished: Int32 = content.withUnsafeBytes { raw in
            guard let data = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return -1 }
            defer { BIO_free(data) }
            return CMS_final(cms, data, nil, flags)
        }
        guard finished == 1 else { throw failure("CMS_final failed") }
        let length = i2d_CMS_ContentInfo(cms, nil)
        guard length > 0 else { throw failure("cannot encode the signature") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_CMS_ContentInfo(cms, &cursor)
        }
        guard written == length else { throw failure("cannot encode the signature") }
        return der
    }

    private static func failure(_ message: String) -> PassBundleError {
        PassBundleError(.signingFailed, OpenSSLErrorQueue.describe(message))
    }

    private static func parseKey(_ der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
    }

    private static func parseCertificate(_ der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
    }
}

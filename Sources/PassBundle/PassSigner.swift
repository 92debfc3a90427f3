// Signs manifest.json as a detached CMS (PKCS#7) SignedData with the Pass Type ID key.
//
// Most signatures come from a SignatureTemplate (see that file): OpenSSL's CMS output for a probe,
// re-signed by patching its fixed-length fields. The full CMS_sign path remains for keys whose
// template does not reproduce CMS_sign exactly and for signing times from 2050 on.
//
// Threading: a PassSigner parses the key and certificates into OpenSSL objects once and never
// mutates them afterwards. OpenSSL 3 allows concurrent use of one EVP_PKEY and X509 for signing
// (each CMS_sign takes references and makes its own EVP_PKEY_CTX; RSA blinding is locked
// internally), and the template lends each thread its own signing context from a pool, so one
// signer serves every thread. Signing blocks for about a millisecond of CPU: call it from a
// dedicated thread (the HTTP engine's), never from Swift's cooperative pool.

public import Certificates
public import Foundation

/// Owns the OpenSSL key and certificates of one signing identity.
public final class PassSigner: Sendable {
    let key: PrivateKey
    private let certificate: X509Certificate
    private let intermediate: X509Certificate
    /// SHA-256 fetched once: `EVP_sha256()` makes every CMS_sign look the algorithm up again.
    let digest: Digest
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
        do throws(CertificateError) {
            let intermediateDER = try identity.requireIntermediate()
            key = try PrivateKey(der: identity.privateKeyDER)
            certificate = try X509Certificate(der: identity.certificateDER, what: "the signing identity's certificate")
            intermediate = try X509Certificate(der: intermediateDER, what: "the WWDR intermediate certificate")
        } catch {
            throw PassBundleError(.certificate, error.message, underlying: error)
        }
        do throws(OpenSSLError) {
            digest = try Digest.sha256()
        } catch {
            throw PassBundleError(signing: error)
        }
        // Compute the cached extension data now, so concurrent signers only read it.
        certificate.cacheExtensions()
        intermediate.cacheExtensions()
        passTypeIdentifier = identity.passTypeIdentifier
        teamIdentifier = identity.teamIdentifier
        let (key, digest) = (key, digest)
        let probe = try? Self.cmsSignature(
            SignatureTemplate.probeContent, signingTime: SignatureTemplate.probeTime,
            key: key, certificate: certificate, intermediate: intermediate, digest: digest
        )
        template = probe.flatMap { SignatureTemplate(probe: $0, key: key, digest: digest) }
        OpenSSLErrorQueue.clear()
    }

    /// A DER detached CMS signature over `content`: SHA-256, signingTime = `signingTime`, the
    /// signer certificate and the WWDR intermediate embedded (no root). The S/MIME capabilities
    /// attribute is left out: Wallet does not use it.
    public func sign(_ content: [UInt8], signingTime: Date = Date()) throws(PassBundleError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        if let template, let signature = try template.sign(content, signingTime: signingTime) { return signature }
        return try signWithCMS(content, signingTime: signingTime)
    }

    /// The same signature, built by OpenSSL's CMS code from scratch.
    func signWithCMS(_ content: [UInt8], signingTime: Date) throws(PassBundleError) -> [UInt8] {
        do throws(OpenSSLError) {
            return try Self.cmsSignature(content, signingTime: signingTime, key: key, certificate: certificate, intermediate: intermediate, digest: digest)
        } catch {
            throw PassBundleError(signing: error)
        }
    }

    private static func cmsSignature(
        _ content: [UInt8], signingTime: Date,
        key: PrivateKey, certificate: X509Certificate, intermediate: X509Certificate, digest: Digest
    ) throws(OpenSSLError) -> [UInt8] {
        try CMSSignature.detached(
            over: content, signingTime: signingTime, signer: certificate, key: key, digest: digest, extraCertificates: [intermediate]
        )
    }
}

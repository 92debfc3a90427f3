import Foundation
import COpenSSL

/// A certificate with its private key, as bytes; exports PEM and PKCS#12.
public struct IssuedCertificate: Sendable, CustomStringConvertible {
    /// The certificate, DER.
    public let certificateDER: [UInt8]
    /// The private key, unencrypted PKCS#8 DER. Secret: never printed.
    public let privateKeyDER: [UInt8]

    public init(certificateDER: [UInt8], privateKeyDER: [UInt8]) {
        self.certificateDER = certificateDER
        self.privateKeyDER = privateKeyDER
    }

    /// The certificate as PEM text.
    public func certificatePEM() throws(CertificateError) -> String {
        String(decoding: try X509Certificate(der: certificateDER, path: nil, what: "certificate").pem, as: UTF8.self)
    }

    /// The key as PKCS#8 PEM, encrypted with AES-256-CBC when `password` is given.
    public func privateKeyPEM(password: String? = nil) throws(CertificateError) -> String {
        let pem = try PrivateKey(der: privateKeyDER).pkcs8PEM(password: password)
        guard !pem.isEmpty else { throw CertificateError(.generationFailed, "cannot encode the private key as PEM", openSSLErrors: OpenSSLErrorQueue.drain()) }
        return String(decoding: pem, as: UTF8.self)
    }

    /// A PKCS#12 file holding the certificate, its key and `chain` (DER certificates).
    /// `legacy` uses RC2-40/3DES like older Keychain exports; otherwise OpenSSL 3's AES default.
    public func pkcs12(password: String, chain: [[UInt8]] = [], legacy: Bool = false, friendlyName: String = "PassServer") throws(CertificateError) -> [UInt8] {
        OpenSSLProviders.ensureLoaded()
        let certificate = try X509Certificate(der: certificateDER, path: nil, what: "certificate")
        let key = try PrivateKey(der: privateKeyDER)
        let extras = try chain.map { der throws(CertificateError) in try X509Certificate(der: der, path: nil, what: "chain certificate") }
        guard let stack = shim_sk_X509_new_null() else { throw CertificateError(.generationFailed, "cannot allocate a certificate stack") }
        defer { shim_sk_X509_free(stack) }
        for extra in extras { _ = shim_sk_X509_push(stack, extra.pointer) }
        OpenSSLErrorQueue.clear()
        let keyNID = legacy ? Int32(NID_pbe_WithSHA1And3_Key_TripleDES_CBC) : 0
        let certificateNID = legacy ? Int32(NID_pbe_WithSHA1And40BitRC2_CBC) : 0
        let p12 = withExtendedLifetime(extras) {
            PKCS12_create(password, friendlyName, key.pointer, certificate.pointer, stack, keyNID, certificateNID, 0, 0, 0)
        }
        guard let p12 else {
            throw CertificateError(.generationFailed, "cannot create the PKCS#12 file", openSSLErrors: OpenSSLErrorQueue.drain())
        }
        defer { PKCS12_free(p12) }
        guard let bio = MemoryBIO(), i2d_PKCS12_bio(bio.bio, p12) == 1 else {
            throw CertificateError(.generationFailed, "cannot encode the PKCS#12 file", openSSLErrors: OpenSSLErrorQueue.drain())
        }
        return bio.contents
    }

    /// Writes the certificate PEM to `certificatePath` and the key PEM to `keyPath` (mode 0600).
    public func write(certificateTo certificatePath: String, keyTo keyPath: String, keyPassword: String? = nil) throws(CertificateError) {
        try writeSecureFile(Array(certificatePEM().utf8), to: certificatePath, mode: 0o644)
        try writeSecureFile(Array(privateKeyPEM(password: keyPassword).utf8), to: keyPath, mode: 0o600)
    }

    /// Writes `pkcs12(password:chain:legacy:)` to `path` (mode 0600).
    public func writePKCS12(to path: String, password: String, chain: [[UInt8]] = [], legacy: Bool = false) throws(CertificateError) {
        try writeSecureFile(pkcs12(password: password, chain: chain, legacy: legacy), to: path, mode: 0o600)
    }

    /// The subject of the certificate (`CN=…, OU=…`).
    public var subject: String {
        (try? X509Certificate(der: certificateDER, path: nil, what: "certificate").subject) ?? "?"
    }

    public var description: String { "IssuedCertificate(\(subject), key redacted)" }
}

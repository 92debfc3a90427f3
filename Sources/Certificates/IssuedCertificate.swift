import Foundation
import COpenSSL

/// A certificate with its private key, as bytes; exports PEM and PKCS#12.
public struct IssuedCertificate: Sendable, CustomStringConvertible {
    /// The certificate, DER.
    public let certificateDER: [UInt8]
    /// The private key, unencrypted PKCS#8 DER. Secret: never printed.
    public let privateKeyDER: [UInt8]

    /// The certificate as PEM text.
    public func certificatePEM() throws(CertificateError) -> String {
        let certificate = try X509Certificate(der: certificateDER)
        do {
            return String(decoding: try certificate.pem(), as: UTF8.self)
        } catch {
            throw CertificateError(.generationFailed, error.message, openSSL: error)
        }
    }

    /// The key as PKCS#8 PEM, encrypted with AES-256-CBC when `password` is given.
    public func privateKeyPEM(password: String? = nil) throws(CertificateError) -> String {
        let key = try PrivateKey(der: privateKeyDER)
        do {
            return String(decoding: try key.pkcs8PEM(password: password), as: UTF8.self)
        } catch {
            throw CertificateError(.generationFailed, error.message, openSSL: error)
        }
    }

    /// A PKCS#12 file holding the certificate, its key and `chain` (DER certificates).
    /// `legacy` uses RC2-40/3DES like older Keychain exports; otherwise OpenSSL 3's AES default.
    public func pkcs12(password: String, chain: [[UInt8]] = [], legacy: Bool = false, friendlyName: String = "PassServer") throws(CertificateError) -> [UInt8] {
        OpenSSLProviders.ensureLoaded()
        let certificate = try X509Certificate(der: certificateDER)
        let key = try PrivateKey(der: privateKeyDER)
        let extras = try chain.map { der throws(CertificateError) in try X509Certificate(der: der, what: "chain certificate") }
        do throws(OpenSSLError) {
            let stack = try CertificateStack(extras)
            OpenSSLErrorQueue.clear()
            let keyNID = legacy ? Int32(NID_pbe_WithSHA1And3_Key_TripleDES_CBC) : 0
            let certificateNID = legacy ? Int32(NID_pbe_WithSHA1And40BitRC2_CBC) : 0
            let p12 = try PKCS12Archive(
                password: password, friendlyName: friendlyName, key: key, certificate: certificate, chain: stack,
                keyNID: keyNID, certificateNID: certificateNID
            )
            return try p12.der()
        } catch {
            throw CertificateError(.generationFailed, error.message, openSSL: error)
        }
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
        (try? X509Certificate(der: certificateDER).subject) ?? "?"
    }

    public var description: String { "IssuedCertificate(\(subject), key redacted)" }
}

public import Foundation
import COpenSSL

/// A certificate authority made with OpenSSL's API: a root, or an intermediate issued by another CA.
///
/// Used by `DevelopmentCertificates` and by tests to make throwaway chains (root → WWDR-like
/// intermediate → pass certificate, TLS server and client certificates). RSA 2048, SHA-256.
public struct CertificateAuthority: Sendable, CustomStringConvertible {
    /// The CA's own certificate and key.
    public let certificate: IssuedCertificate

    /// Wraps an existing CA certificate and key (for example read back from disk).
    public init(certificate: IssuedCertificate) { self.certificate = certificate }

    /// Creates a self-signed root CA.
    public static func makeRoot(
        subject: DistinguishedName = ["CN": "PassServer Development Root CA", "O": "PassServer Development"],
        notBefore: Date = Date(timeIntervalSinceNow: -3600),
        notAfter: Date = Date(timeIntervalSinceNow: 10 * 365 * 86400)
    ) throws(CertificateError) -> CertificateAuthority {
        do throws(OpenSSLError) {
            let key = try PrivateKey.generateRSA()
            let certificate = try CertificateBuilder.build(
                subject: subject, publicKey: key, issuer: nil, issuerKey: key,
                usage: .certificateAuthority, subjectAlternativeNames: [], notBefore: notBefore, notAfter: notAfter
            )
            return CertificateAuthority(certificate: IssuedCertificate(certificateDER: try certificate.der(), privateKeyDER: try key.pkcs8DER()))
        } catch {
            throw CertificateError(.generationFailed, error.message, openSSL: error)
        }
    }

    /// Issues an intermediate CA (for example a WWDR-like intermediate) signed by this CA.
    public func issueIntermediate(
        subject: DistinguishedName,
        notBefore: Date = Date(timeIntervalSinceNow: -3600),
        notAfter: Date = Date(timeIntervalSinceNow: 5 * 365 * 86400)
    ) throws(CertificateError) -> CertificateAuthority {
        CertificateAuthority(certificate: try issue(subject: subject, usage: .certificateAuthority, notBefore: notBefore, notAfter: notAfter))
    }

    /// Issues a certificate with a fresh RSA 2048 key.
    ///
    /// `subjectAlternativeNames` use OpenSSL's syntax: `DNS:localhost`, `IP:127.0.0.1`.
    public func issue(
        subject: DistinguishedName,
        usage: CertificateUsage,
        subjectAlternativeNames: [String] = [],
        notBefore: Date = Date(timeIntervalSinceNow: -3600),
        notAfter: Date = Date(timeIntervalSinceNow: 365 * 86400)
    ) throws(CertificateError) -> IssuedCertificate {
        let issuer = try X509Certificate(der: certificate.certificateDER, path: nil, what: "CA certificate")
        let issuerKey = try PrivateKey(der: certificate.privateKeyDER)
        do throws(OpenSSLError) {
            let key = try PrivateKey.generateRSA()
            let issued = try CertificateBuilder.build(
                subject: subject, publicKey: key, issuer: issuer, issuerKey: issuerKey,
                usage: usage, subjectAlternativeNames: subjectAlternativeNames, notBefore: notBefore, notAfter: notAfter
            )
            return IssuedCertificate(certificateDER: try issued.der(), privateKeyDER: try key.pkcs8DER())
        } catch {
            throw CertificateError(.generationFailed, error.message, openSSL: error)
        }
    }

    public var description: String { "CertificateAuthority(\(certificate.subject))" }
}

/// Assembles and signs one X509 certificate.
enum CertificateBuilder {
    static func build(
        subject: DistinguishedName,
        publicKey: PrivateKey,
        issuer: X509Certificate?,
        issuerKey: PrivateKey,
        usage: CertificateUsage,
        subjectAlternativeNames: [String],
        notBefore: Date,
        notAfter: Date
    ) throws(OpenSSLError) -> X509Certificate {
        OpenSSLErrorQueue.clear()
        let certificate = X509Certificate(owning: try check(X509_new(), "allocate a certificate"))
        let raw = certificate.pointer
        let name = try check(X509_NAME_new(), "allocate a name")
        defer { X509_NAME_free(name) }
        for attribute in subject.attributes {
            let added = attribute.value.withCString { value in
                value.withMemoryRebound(to: UInt8.self, capacity: attribute.value.utf8.count + 1) {
                    X509_NAME_add_entry_by_txt(name, attribute.name, MBSTRING_UTF8, $0, -1, -1, 0)
                }
            }
            try check(added == 1, "add subject attribute \(attribute.name)")
        }
        let serial = UInt64.random(in: 1...UInt64(Int64.max))
        try check(X509_set_version(raw, 2) == 1, "set the certificate version")
        try check(ASN1_INTEGER_set_uint64(X509_get_serialNumber(raw), serial) == 1, "set the serial number")
        try check(X509_set_subject_name(raw, name) == 1, "set the subject")
        try check(X509_set_issuer_name(raw, issuer.map { X509_get_subject_name($0.pointer) } ?? name) == 1, "set the issuer")
        try check(ASN1_TIME_set(X509_getm_notBefore(raw), time_t(notBefore.timeIntervalSince1970)), "set notBefore")
        try check(ASN1_TIME_set(X509_getm_notAfter(raw), time_t(notAfter.timeIntervalSince1970)), "set notAfter")
        try check(X509_set_pubkey(raw, publicKey.pointer) == 1, "set the public key")

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? raw, raw, nil, nil, 0)
        var extensions = usage.extensions
        extensions.append(("subjectKeyIdentifier", "hash"))
        extensions.append(("authorityKeyIdentifier", "keyid:always"))
        if !subjectAlternativeNames.isEmpty { extensions.append(("subjectAltName", subjectAlternativeNames.joined(separator: ","))) }
        for (extensionName, value) in extensions {
            let ext = try check(X509V3_EXT_conf_nid(nil, &context, OBJ_sn2nid(extensionName), value), "make extension \(extensionName)=\(value)")
            defer { X509_EXTENSION_free(ext) }
            try check(X509_add_ext(raw, ext, -1) == 1, "add extension \(extensionName)")
        }
        try check(X509_sign(raw, issuerKey.pointer, EVP_sha256()) > 0, "sign the certificate")
        return certificate
    }
}

public import Foundation

/// When a certificate is valid, and whose it is: what monitoring needs to warn before expiry,
/// without holding any OpenSSL object.
public struct CertificateValidity: Sendable, Equatable {
    /// The subject in RFC 2253-like form (`CN=…, OU=…`).
    public let subject: String
    public let notBefore: Date
    public let notAfter: Date

    /// Reads one DER certificate; `what` names it in errors.
    public init(der: [UInt8], what: String = "certificate") throws(CertificateError) {
        try self.init(try X509Certificate(der: der, path: nil, what: what), path: what)
    }

    /// Every certificate in a PEM file (a bundle or chain), or the one certificate of a DER file.
    public static func read(file path: String, what: String = "certificate") throws(CertificateError) -> [CertificateValidity] {
        let certificates = try X509Certificate.all(pemOrDER: readFileBytes(path, what: what), path: path, what: what)
        var validities: [CertificateValidity] = []
        for certificate in certificates {
            validities.append(try CertificateValidity(certificate, path: path))
        }
        return validities
    }

    private init(_ certificate: X509Certificate, path: String) throws(CertificateError) {
        guard let notBefore = certificate.notBefore, let notAfter = certificate.notAfter else {
            throw CertificateError(.unreadable, "\(path) has unreadable validity dates", path: path)
        }
        subject = certificate.subject
        self.notBefore = notBefore
        self.notAfter = notAfter
    }
}

public import Foundation

/// A Pass Type ID certificate, its private key and (usually) Apple's WWDR intermediate.
///
/// Holds only bytes, so it is `Sendable` and free of C types; pass signing and the APNs TLS client
/// each parse it into their own OpenSSL objects once. `description` never shows the key.
public struct SigningIdentity: Sendable, CustomStringConvertible {
    /// The leaf certificate, DER.
    public let certificateDER: [UInt8]
    /// The private key as unencrypted PKCS#8 DER. Secret: never printed.
    public let privateKeyDER: [UInt8]
    /// The WWDR intermediate that issued the leaf, DER.
    public let intermediateDER: [UInt8]?
    /// The certificate subject's UID: the pass type identifier (`pass.com.example.event`).
    public let passTypeIdentifier: String
    /// The certificate subject's OU: the team identifier.
    public let teamIdentifier: String
    /// Start of the leaf's validity.
    public let notBefore: Date
    /// End of the leaf's validity.
    public let notAfter: Date
    /// The leaf's subject in RFC 2253 form.
    public let subject: String

    /// Builds an identity from DER parts, checking that the key matches the certificate, that the
    /// certificate (and intermediate) are valid at `now`, that the subject carries UID and OU, and
    /// that the intermediate issued the certificate. `source` names the files in error messages.
    public init(
        certificateDER: [UInt8],
        privateKeyDER: [UInt8],
        intermediateDER: [UInt8]?,
        now: Date = Date(),
        source: String = "certificate"
    ) throws(CertificateError) {
        let certificate = try X509Certificate(der: certificateDER, path: source)
        let key = try PrivateKey(der: privateKeyDER)
        let intermediate: X509Certificate? = if let intermediateDER {
            try X509Certificate(der: intermediateDER, path: source, what: "WWDR intermediate")
        } else {
            nil
        }
        try self.init(certificate: certificate, key: key, intermediate: intermediate, now: now, certificatePath: source, intermediatePath: source)
    }

    init(
        certificate: X509Certificate,
        key: PrivateKey,
        intermediate: X509Certificate?,
        now: Date,
        certificatePath: String,
        intermediatePath: String?
    ) throws(CertificateError) {
        let validity = try Self.checkValidity(certificate, at: now, what: "certificate", path: certificatePath)
        guard key.matches(certificate) else {
            throw CertificateError(.keyMismatch, "the private key does not belong to the certificate \(certificatePath)", path: certificatePath)
        }
        let subject = certificate.subject
        guard let uid = certificate.subjectEntry(nid: NIDs.userId), !uid.isEmpty else {
            throw CertificateError(.missingUID, "certificate \(certificatePath) has no UID (pass type identifier) in its subject \(subject)", path: certificatePath)
        }
        guard let team = certificate.subjectEntry(nid: NIDs.organizationalUnit), !team.isEmpty else {
            throw CertificateError(.missingTeamIdentifier, "certificate \(certificatePath) has no OU (team identifier) in its subject \(subject)", path: certificatePath)
        }
        if let intermediate {
            let path = intermediatePath ?? certificatePath
            _ = try Self.checkValidity(intermediate, at: now, what: "WWDR intermediate", path: path)
            guard certificate.isIssued(by: intermediate) else {
                throw CertificateError(
                    .wwdrMismatch,
                    "WWDR intermediate \(path) (\(intermediate.subject)) did not issue certificate \(certificatePath); for certificates issued since 2022 use Apple's WWDR G4",
                    path: path
                )
            }
        }
        do throws(OpenSSLError) {
            self.certificateDER = try certificate.der()
            self.privateKeyDER = try key.pkcs8DER()
            self.intermediateDER = try intermediate?.der()
        } catch {
            throw CertificateError(.unreadable, "\(error.message) of \(certificatePath)", path: certificatePath, openSSL: error)
        }
        self.passTypeIdentifier = uid
        self.teamIdentifier = team
        self.notBefore = validity.notBefore
        self.notAfter = validity.notAfter
        self.subject = subject
    }

    /// Throws `.wwdrMissing` when no intermediate is present; signing passes needs one.
    public func requireIntermediate() throws(CertificateError) -> [UInt8] {
        guard let intermediateDER else {
            throw CertificateError(.wwdrMissing, "no WWDR intermediate certificate is configured for \(passTypeIdentifier): set WWDR_CERTIFICATE to Apple's WWDR G4 certificate (PEM or DER)")
        }
        return intermediateDER
    }

    public var description: String {
        "SigningIdentity(\(passTypeIdentifier), team \(teamIdentifier), subject \(subject), valid until \(notAfter), key redacted)"
    }

    private static func checkValidity(_ certificate: X509Certificate, at now: Date, what: String, path: String) throws(CertificateError) -> (notBefore: Date, notAfter: Date) {
        guard let notBefore = certificate.notBefore, let notAfter = certificate.notAfter else {
            throw CertificateError(.unreadable, "\(what) \(path) has unreadable validity dates", path: path)
        }
        if now < notBefore {
            throw CertificateError(.notYetValid, "\(what) \(path) is not valid before \(notBefore) (now \(now))", path: path)
        }
        if now > notAfter {
            throw CertificateError(.expired, "\(what) \(path) expired on \(notAfter) (now \(now))", path: path)
        }
        return (notBefore, notAfter)
    }
}

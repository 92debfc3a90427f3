public import Foundation

/// Throwaway certificates for running PassServer end to end on one machine.
///
/// A root CA signs a WWDR-like intermediate, which signs a Pass Type ID certificate; the root
/// also signs a TLS server certificate for 127.0.0.1/localhost. Wallet on a real phone rejects
/// passes signed this way; that is expected. Made with OpenSSL's API, not the `openssl` tool.
public enum DevelopmentCertificates {
    /// Default pass type identifier of development passes.
    public static let defaultPassTypeIdentifier = "pass.dev.passserver.event"
    /// A fake 10-character team identifier.
    public static let defaultTeamIdentifier = "DEVTEAM001"

    /// Where the generated PEM files are.
    public struct Paths: Sendable, Equatable {
        public let directory: String
        public var rootCertificate: String { directory + "/root-ca.pem" }
        public var rootKey: String { directory + "/root-ca-key.pem" }
        public var wwdrCertificate: String { directory + "/wwdr.pem" }
        public var passCertificate: String { directory + "/pass-certificate.pem" }
        public var passKey: String { directory + "/pass-key.pem" }
        public var serverCertificate: String { directory + "/server-certificate.pem" }
        public var serverKey: String { directory + "/server-key.pem" }
        var all: [String] { [rootCertificate, rootKey, wwdrCertificate, passCertificate, passKey, serverCertificate, serverKey] }
    }

    /// Creates the files in `directory` unless a complete, matching set valid for at least
    /// 30 more days is already there (then nothing is rewritten). Keys are written mode 0600.
    @discardableResult
    public static func generate(
        directory: String,
        passTypeIdentifier: String = defaultPassTypeIdentifier,
        teamIdentifier: String = defaultTeamIdentifier,
        now: Date = Date()
    ) throws(CertificateError) -> Paths {
        let paths = Paths(directory: directory)
        if existingSetIsUsable(paths, passTypeIdentifier: passTypeIdentifier, teamIdentifier: teamIdentifier, now: now) {
            return paths
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CertificateError(.generationFailed, "cannot create directory \(directory)", path: directory, underlying: error)
        }
        let root = try CertificateAuthority.makeRoot(notBefore: now - 3600, notAfter: now + 10 * 365 * 86400)
        let wwdr = try root.issueIntermediate(
            subject: ["CN": "PassServer Development WWDR Intermediate", "OU": "G4", "O": "PassServer Development", "C": "US"],
            notBefore: now - 3600, notAfter: now + 5 * 365 * 86400
        )
        let pass = try wwdr.issue(
            subject: [
                "UID": passTypeIdentifier, "CN": "Pass Type ID: \(passTypeIdentifier)",
                "OU": teamIdentifier, "O": "PassServer Development", "C": "US",
            ],
            usage: .passSigning, notBefore: now - 3600, notAfter: now + 365 * 86400
        )
        let server = try root.issue(
            subject: ["CN": "localhost", "O": "PassServer Development"], usage: .tlsServer,
            subjectAlternativeNames: ["IP:127.0.0.1", "DNS:localhost"], notBefore: now - 3600, notAfter: now + 365 * 86400
        )
        try root.certificate.write(certificateTo: paths.rootCertificate, keyTo: paths.rootKey)
        try writeSecureFile(Array(wwdr.certificate.certificatePEM().utf8), to: paths.wwdrCertificate, mode: 0o644)
        try pass.write(certificateTo: paths.passCertificate, keyTo: paths.passKey)
        try server.write(certificateTo: paths.serverCertificate, keyTo: paths.serverKey)
        return paths
    }

    /// Loads the pass identity from a directory made by `generate`.
    public static func identity(in directory: String, now: Date = Date()) throws(CertificateError) -> SigningIdentity {
        let paths = Paths(directory: directory)
        return try SigningIdentity.load(pem: paths.passCertificate, privateKey: paths.passKey, password: nil, wwdr: paths.wwdrCertificate, now: now)
    }

    private static func existingSetIsUsable(_ paths: Paths, passTypeIdentifier: String, teamIdentifier: String, now: Date) -> Bool {
        guard paths.all.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) else { return false }
        let soon = now + 30 * 86400
        do {
            let identity = try SigningIdentity.load(pem: paths.passCertificate, privateKey: paths.passKey, password: nil, wwdr: paths.wwdrCertificate, now: soon)
            guard identity.passTypeIdentifier == passTypeIdentifier, identity.teamIdentifier == teamIdentifier else { return false }
            let root = try X509Certificate(pemOrDER: readFileBytes(paths.rootCertificate, what: "root"), path: paths.rootCertificate, what: "root")
            let rootKey = try PrivateKey(pemOrDER: readFileBytes(paths.rootKey, what: "root key"), password: nil, path: paths.rootKey)
            let wwdr = try X509Certificate(pemOrDER: readFileBytes(paths.wwdrCertificate, what: "wwdr"), path: paths.wwdrCertificate, what: "wwdr")
            let server = try X509Certificate(pemOrDER: readFileBytes(paths.serverCertificate, what: "server"), path: paths.serverCertificate, what: "server")
            let serverKey = try PrivateKey(pemOrDER: readFileBytes(paths.serverKey, what: "server key"), password: nil, path: paths.serverKey)
            guard rootKey.matches(root), serverKey.matches(server), wwdr.isIssued(by: root), server.isIssued(by: root),
                  let rootEnd = root.notAfter, let serverEnd = server.notAfter, rootEnd > soon, serverEnd > soon
            else { return false }
            return true
        } catch {
            return false
        }
    }
}

public import Certificates
import Foundation

/// Throwaway certificates for tests, written as files into a test's own directory.
///
/// Chains: `root` → `wwdr` (WWDR-like intermediate) → pass certificate (UID/OU set, also usable
/// as a TLS client certificate, as with APNs, sending `wwdr` as its chain); `root` → TLS server
/// certificate for 127.0.0.1 and localhost; `root` → TLS client certificate. A second, unrelated
/// `untrustedRoot` issues its own server and client certificates for negative TLS tests.
/// Keys are generated once per test process and shared (RSA keygen is slow on a loaded
/// machine); each `make(in:)` writes fresh files.
public struct TestCertificates: Sendable {
    /// Pass type identifier (certificate UID) of the test pass certificate.
    public static let passTypeIdentifier = "pass.test.passserver.event"
    /// Team identifier (certificate OU) of the test pass certificate.
    public static let teamIdentifier = "TESTTEAM01"
    /// Password of `passKeyEncrypted` and of the `.p12` files.
    public static let password = "test-password-ü"

    public let directory: String
    public let root: CertificateAuthority
    public let wwdr: CertificateAuthority
    public let untrustedRoot: CertificateAuthority
    /// The pass identity, loaded from the PEM files.
    public let identity: SigningIdentity

    public var rootCertificate: String { directory + "/root-ca.pem" }
    public var rootKey: String { directory + "/root-ca-key.pem" }
    public var wwdrCertificate: String { directory + "/wwdr.pem" }
    public var wwdrCertificateDER: String { directory + "/wwdr.cer" }
    public var passCertificate: String { directory + "/pass-certificate.pem" }
    public var passKey: String { directory + "/pass-key.pem" }
    /// The pass key encrypted with `TestCertificates.password`.
    public var passKeyEncrypted: String { directory + "/pass-key-encrypted.pem" }
    /// Pass certificate + key + WWDR, AES-encrypted (OpenSSL 3 default), `TestCertificates.password`.
    public var passP12: String { directory + "/pass.p12" }
    /// The same with legacy RC2/3DES ciphers, like older Keychain exports.
    public var passP12Legacy: String { directory + "/pass-legacy.p12" }
    /// A TLS client certificate issued directly by `root` (no intermediate needed to verify it).
    public var clientCertificate: String { directory + "/client-certificate.pem" }
    public var clientKey: String { directory + "/client-key.pem" }
    public var serverCertificate: String { directory + "/server-certificate.pem" }
    public var serverKey: String { directory + "/server-key.pem" }
    public var untrustedRootCertificate: String { directory + "/untrusted-root-ca.pem" }
    public var untrustedServerCertificate: String { directory + "/untrusted-server-certificate.pem" }
    public var untrustedServerKey: String { directory + "/untrusted-server-key.pem" }
    public var untrustedClientCertificate: String { directory + "/untrusted-client-certificate.pem" }
    public var untrustedClientKey: String { directory + "/untrusted-client-key.pem" }

    /// Writes every file into `directory` (created if needed) and loads the pass identity.
    public static func make(in directory: String) throws -> TestCertificates {
        let material = try Material.shared.get()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let set = TestCertificates(
            directory: directory, root: material.root, wwdr: material.wwdr, untrustedRoot: material.untrustedRoot,
            identity: try SigningIdentity(certificateDER: material.pass.certificateDER, privateKeyDER: material.pass.privateKeyDER, intermediateDER: material.wwdr.certificate.certificateDER)
        )
        try material.root.certificate.write(certificateTo: set.rootCertificate, keyTo: set.rootKey)
        try Data(material.wwdr.certificate.certificatePEM().utf8).write(to: URL(fileURLWithPath: set.wwdrCertificate))
        try Data(material.wwdr.certificate.certificateDER).write(to: URL(fileURLWithPath: set.wwdrCertificateDER))
        try material.pass.write(certificateTo: set.passCertificate, keyTo: set.passKey)
        try Data(material.pass.privateKeyPEM(password: password).utf8).write(to: URL(fileURLWithPath: set.passKeyEncrypted))
        let chain = [material.wwdr.certificate.certificateDER]
        try material.pass.writePKCS12(to: set.passP12, password: password, chain: chain)
        try material.pass.writePKCS12(to: set.passP12Legacy, password: password, chain: chain, legacy: true)
        try material.server.write(certificateTo: set.serverCertificate, keyTo: set.serverKey)
        try material.client.write(certificateTo: set.clientCertificate, keyTo: set.clientKey)
        try Data(material.untrustedRoot.certificate.certificatePEM().utf8).write(to: URL(fileURLWithPath: set.untrustedRootCertificate))
        try material.untrustedServer.write(certificateTo: set.untrustedServerCertificate, keyTo: set.untrustedServerKey)
        try material.untrustedClient.write(certificateTo: set.untrustedClientCertificate, keyTo: set.untrustedClientKey)
        return set
    }

    /// A new, unique temporary directory for one test.
    public static func temporaryDirectory(prefix: String = "passserver-test") throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The keys and certificates, generated once per process.
    private struct Material: Sendable {
        let root: CertificateAuthority
        let wwdr: CertificateAuthority
        let pass: IssuedCertificate
        let server: IssuedCertificate
        let client: IssuedCertificate
        let untrustedRoot: CertificateAuthority
        let untrustedServer: IssuedCertificate
        let untrustedClient: IssuedCertificate

        static let shared: Result<Material, CertificateError> = Result { () throws(CertificateError) in
            let root = try CertificateAuthority.makeRoot(subject: ["CN": "PassServer Test Root CA", "O": "PassServer Tests"])
            let wwdr = try root.issueIntermediate(subject: ["CN": "PassServer Test WWDR Intermediate", "OU": "G4", "O": "PassServer Tests"])
            let pass = try wwdr.issue(
                subject: ["UID": passTypeIdentifier, "CN": "Pass Type ID: \(passTypeIdentifier)", "OU": teamIdentifier, "O": "PassServer Tests", "C": "US"],
                usage: .passSigning
            )
            let server = try root.issue(subject: ["CN": "localhost"], usage: .tlsServer, subjectAlternativeNames: ["IP:127.0.0.1", "DNS:localhost"])
            let client = try root.issue(subject: ["CN": "PassServer Test Client", "UID": passTypeIdentifier, "OU": teamIdentifier], usage: .tlsClient)
            let untrustedRoot = try CertificateAuthority.makeRoot(subject: ["CN": "Untrusted Test Root CA", "O": "Elsewhere"])
            let untrustedServer = try untrustedRoot.issue(subject: ["CN": "localhost"], usage: .tlsServer, subjectAlternativeNames: ["IP:127.0.0.1", "DNS:localhost"])
            let untrustedClient = try untrustedRoot.issue(subject: ["CN": "Untrusted Client", "UID": passTypeIdentifier, "OU": teamIdentifier], usage: .tlsClient)
            return Material(root: root, wwdr: wwdr, pass: pass, server: server, client: client, untrustedRoot: untrustedRoot, untrustedServer: untrustedServer, untrustedClient: untrustedClient)
        }
    }
}

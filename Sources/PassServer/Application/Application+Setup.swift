import APNs
import Certificates
import Foundation
import Logging

extension Application {
    /// TOKEN_SECRET, or in development a secret kept in `.data/token-secret` (created once).
    static func tokenSecret(_ configuration: Configuration) throws -> [UInt8] {
        if let secret = configuration.tokenSecret { return secret }
        guard configuration.development else { throw ConfigurationError(problems: ["TOKEN_SECRET: required"]) }
        let path = ".data/token-secret"
        if let text = try? String(contentsOfFile: path, encoding: .utf8), let secret = try? Parse.secret(text) {
            return secret
        }
        try FileManager.default.createDirectory(atPath: ".data", withIntermediateDirectories: true)
        let secret = SecureRandom.bytes(32)
        try Hex.encode(secret).write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return secret
    }

    /// The pass signing identity; in development, generated certificates are created first.
    static func signingIdentity(_ configuration: Configuration, logger: Logger) throws -> SigningIdentity {
        let signing = configuration.signing
        if configuration.development, signing.certificate == "\(Configuration.developmentCertificatesDirectory)/pass-certificate.pem" {
            let paths = try DevelopmentCertificates.generate(
                directory: Configuration.developmentCertificatesDirectory,
                passTypeIdentifier: signing.passTypeIdentifier ?? DevelopmentCertificates.defaultPassTypeIdentifier,
                teamIdentifier: signing.teamIdentifier ?? DevelopmentCertificates.defaultTeamIdentifier
            )
            logger.notice("using development certificates (Wallet on a real phone will not accept these passes)", ["directory": paths.directory])
        }
        let identity: SigningIdentity
        if let p12 = signing.p12 {
            identity = try SigningIdentity.load(p12: p12, password: signing.p12Password, wwdr: signing.wwdrCertificate)
        } else if let certificate = signing.certificate, let key = signing.privateKey {
            identity = try SigningIdentity.load(
                pem: certificate, privateKey: key, password: signing.privateKeyPassword, wwdr: signing.wwdrCertificate
            )
        } else {
            throw ConfigurationError(problems: ["PASS_CERTIFICATE: required (or PASS_P12)"])
        }
        var problems: [String] = []
        if let expected = signing.passTypeIdentifier, expected != identity.passTypeIdentifier {
            problems.append("PASS_TYPE_IDENTIFIER: '\(expected)' differs from the certificate's UID '\(identity.passTypeIdentifier)'")
        }
        if let expected = signing.teamIdentifier, expected != identity.teamIdentifier {
            problems.append("TEAM_IDENTIFIER: '\(expected)' differs from the certificate's OU '\(identity.teamIdentifier)'")
        }
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return identity
    }

    /// `APNS_MODE=live`: an HTTP/2 client authenticated with the pass type identity; `log`: a logger.
    static func pushSender(_ configuration: Configuration, identity: SigningIdentity, logger: Logger) throws -> any PushSender {
        guard configuration.apns.mode == .live else { return LoggingPushSender(logger: logger) }
        var apns = APNSConfiguration(clientCertificateDER: identity.certificateDER, clientPrivateKeyDER: identity.privateKeyDER)
        apns.url = configuration.apns.url
        apns.caFile = configuration.apns.caFile
        apns.connections = configuration.apns.connections
        apns.expiration = .seconds(configuration.apns.expiration)
        apns.requestTimeout = Double(configuration.apns.requestTimeout)
        apns.pushType = configuration.apns.pushType
        apns.priority = configuration.apns.priority
        if let intermediate = identity.intermediateDER { apns.clientChainDER = [intermediate] }
        return try APNSClient(configuration: apns, logger: logger)
    }

    /// Apple's sandbox hosts accept pushes to pass type topics but never deliver pass updates, so
    /// pointing `APNS_URL` at one is a mistake that would otherwise go unnoticed.
    static func warnAboutSandbox(_ configuration: Configuration, logger: Logger) {
        guard configuration.apns.mode == .live, let host = URL(string: configuration.apns.url)?.host?.lowercased(),
              sandboxHosts.contains(host)
        else { return }
        logger.warning(
            "APNS_URL points at Apple's sandbox, which never delivers pass updates; use https://api.push.apple.com",
            ["apns.url": configuration.apns.url]
        )
    }

    static let sandboxHosts: Set<String> = ["api.sandbox.push.apple.com", "api.development.push.apple.com"]

    /// In development, the first start mints an admin token named "development" and returns it
    /// (once) so `make run` can print it; later starts return nil.
    func developmentAdminToken() throws -> String? {
        guard configuration.development, try store.adminTokens().isEmpty else { return nil }
        let token = AdminAuthentication.newToken()
        _ = try store.createAdminToken(name: "development", tokenHash: TokenVault.hash(token), now: Date())
        return token
    }
}

import ByteEncoding
import APNs
package import Certificates
package import Foundation
package import Logging
import Storage

extension Application {
    /// TOKEN_SECRET, or in development a secret kept in `.data/token-secret` (created once, mode
    /// 0600 from its first instant; an existing file that is not a valid secret is an error rather
    /// than replaced, because every issued pass depends on it).
    package static func tokenSecret(_ configuration: Configuration) throws -> [UInt8] {
        if let secret = configuration.tokenSecret { return secret }
        guard configuration.development else { throw ConfigurationError(problems: ["TOKEN_SECRET: required"]) }
        let path = ".data/token-secret"
        try FileManager.default.createDirectory(atPath: ".data", withIntermediateDirectories: true)
        let fresh = SecureRandom.bytes(32)
        if try PrivateFile.create(path, bytes: Array(Hex.encode(fresh).utf8)) { return fresh }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        do {
            return try Parse.secret(text)
        } catch {
            throw ConfigurationError(problems: ["\(path): \(error.message) (remove the file to generate a new secret)"])
        }
    }

    /// The pass signing identity, valid at `now`; in development, generated certificates are
    /// created first. A certificate that cannot be used (expired, not yet valid, unreadable, not
    /// matching its key) is a `StartupError` naming the setting, with a hint.
    package static func signingIdentity(_ configuration: Configuration, logger: Logger, now: Date) throws -> SigningIdentity {
        do {
            return try loadSigningIdentity(configuration, logger: logger, now: now)
        } catch let error as CertificateError {
            let signing = configuration.signing
            let key = if error.path != nil && error.path == signing.wwdrCertificate {
                "WWDR_CERTIFICATE"
            } else if error.path != nil && error.path == signing.privateKey {
                "PASS_PRIVATE_KEY"
            } else {
                signing.p12 != nil ? "PASS_P12" : "PASS_CERTIFICATE"
            }
            throw StartupError([Bootstrap.certificateProblem(error, setting: key, step: .signing)])
        }
    }

    private static func loadSigningIdentity(_ configuration: Configuration, logger: Logger, now: Date) throws -> SigningIdentity {
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
            identity = try SigningIdentity.load(p12: p12, password: signing.p12Password, wwdr: signing.wwdrCertificate, now: now)
        } else if let certificate = signing.certificate, let key = signing.privateKey {
            identity = try SigningIdentity.load(
                pem: certificate, privateKey: key, password: signing.privateKeyPassword, wwdr: signing.wwdrCertificate, now: now
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

    /// The certificates whose expiry is watched: the pass certificate, its WWDR intermediate and,
    /// when pushes go out live, the earliest-expiring certificate of `APNS_CA_FILE`.
    static func watchedCertificates(_ configuration: Configuration, identity: SigningIdentity) throws -> [CertificateMonitor.Certificate] {
        var watched = [CertificateMonitor.Certificate(
            name: "pass", title: "the pass certificate", subject: identity.subject, notAfter: identity.notAfter
        )]
        if let intermediate = identity.intermediateDER {
            let validity = try CertificateValidity(der: intermediate, what: "WWDR intermediate")
            watched.append(.init(name: "wwdr", title: "the WWDR intermediate", subject: validity.subject, notAfter: validity.notAfter))
        }
        if configuration.apns.mode == .live, let caFile = configuration.apns.caFile {
            let validities: [CertificateValidity]
            do {
                validities = try CertificateValidity.read(file: caFile, what: "APNS_CA_FILE")
            } catch {
                throw ConfigurationError(problems: ["APNS_CA_FILE: \(error.message)"])
            }
            if let first = validities.min(by: { $0.notAfter < $1.notAfter }) {
                watched.append(.init(name: "apns_ca", title: "the APNs CA certificate in \(caFile)", subject: first.subject, notAfter: first.notAfter))
            }
        }
        return watched
    }

    /// `APNS_MODE=live`: an HTTP/2 client authenticated with the pass type identity; `log`: a logger.
    static func pushSender(_ configuration: Configuration, identity: SigningIdentity, logger: Logger) throws -> PushSender {
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

    /// The dispatcher of the Android wallet relay (ANDROID_PASS_PUSH_URL), with the push settings
    /// of APNs (batch, lease, retries, halt pause); nil while the relay is not configured.
    static func relayDispatcher(_ configuration: Configuration, store: any Store, readiness: Readiness, logger: Logger) -> PushDispatcher? {
        guard let url = configuration.androidRelay.url else { return nil }
        let sender = RelayPushSender(url: url, key: configuration.androidRelay.key, transport: HTTPClientRelayTransport(), logger: logger)
        // A batch goes out as one request per `maxTokensPerRequest` tokens, one after another.
        let requests = configuration.push.batchSize / sender.maxTokensPerRequest + 1
        let timeout = Int(sender.timeout.components.seconds)
        return PushDispatcher(
            store: store, sender: sender,
            policy: PushPolicy(
                maxRetryAge: TimeInterval(configuration.push.maxRetryAge), baseDelay: configuration.push.retryBaseDelay,
                maxDelay: configuration.push.retryMaxDelay
            ),
            readiness: readiness, logger: logger,
            settings: PushDispatcher.Settings(
                batchSize: configuration.push.batchSize, maxInFlight: configuration.push.concurrency,
                lease: .seconds(configuration.push.lease ?? requests * timeout + 30),
                haltPause: TimeInterval(configuration.push.haltPause), drainTimeout: TimeInterval(configuration.http.drainTimeout),
                unreachableGrace: TimeInterval(configuration.apns.unreachableGrace)
            ),
            service: .relay
        )
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

    /// What a development start says about admin tokens.
    package enum DevelopmentToken: Equatable {
        /// The first start minted this admin token (shown once).
        case minted(String)
        /// Tokens exist already; this command mints another.
        case mintWith(command: String)
    }

    /// In development, the first start mints an admin token named "development" and returns it
    /// (once) so `make run` can print it; later starts return the command that mints another.
    /// Outside development nil.
    package func developmentAdminToken() throws -> DevelopmentToken? {
        guard configuration.development else { return nil }
        let token = AdminAuthentication.newToken()
        let minted = try store.withSession(.write) { session -> Bool in
            guard try session.admin.adminTokens().isEmpty else { return false }
            _ = try session.admin.createAdminToken(name: "development", tokenHash: TokenVault.hash(token), now: Date())
            return true
        }
        return minted ? .minted(token) : .mintWith(command: Self.tokenCreateCommand(configuration))
    }

    /// The exact command that mints an admin token for this database from a source checkout (how
    /// `make run` runs). A PostgreSQL URL may hold a password, so it is named, not printed.
    static func tokenCreateCommand(_ configuration: Configuration) -> String {
        let command = "swift run pass-server token create --name NAME --role admin"
        let url = configuration.database.url
        if url == Configuration.Database().url { return command }
        if url.lowercased().hasPrefix("sqlite://") { return command + " --database-url '\(url)'" }
        return command + "   # with this server's DATABASE_URL in the environment"
    }
}

import APNs
import Foundation
import Mail
import SystemSupport

/// Every problem found while reading the configuration, reported together.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let problems: [String]
    /// Whether some of the problems are about the signing identity (certificate, key, WWDR), so a
    /// command can point at `--development`.
    public var aboutSigning = false
    public var description: String {
        "configuration is invalid:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}

extension Configuration {
    /// What a subcommand needs beyond the database.
    public struct Requirements: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// A pass signing identity (certificate + key + WWDR).
        public static let signing = Requirements(rawValue: 1)
        /// PUBLIC_URL, TOKEN_SECRET and ORGANIZATION_NAME, needed to issue and serve passes.
        public static let publishing = Requirements(rawValue: 2)
        public static let serve: Requirements = [.signing, .publishing]
    }

    /// Where development certificates live (`pass-server certs dev` writes them there).
    public static let developmentCertificatesDirectory = "Certificates/dev"

    /// Reads the environment, then the flags (`--http-port 9000`, `--http-port=9000`, bare `--flag`
    /// for booleans, `--no-migrate`), then checks everything together. `checkingFiles: false`
    /// leaves whether the certificate files can be read to the caller (`serve` reports it with its
    /// other start-up problems).
    public static func load(
        environment: [String: String], arguments: [String] = [], requirements: Requirements = [], checkingFiles: Bool = true
    ) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        var problems: [String] = []
        var explicit = Set<String>()
        let byKey = Dictionary(uniqueKeysWithValues: settings.map { ($0.key, $0) })

        for setting in settings {
            // An empty variable (as `env_file` passes an unfilled key) counts as unset.
            guard let raw = environment[setting.key], !raw.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            apply(setting, raw, source: setting.key, to: &configuration, problems: &problems)
            explicit.insert(setting.key)
        }

        let flagNames = settings.map { String($0.flag.dropFirst(2)) }
        let booleans = Set(settings.filter(\.isBoolean).map { String($0.flag.dropFirst(2)) })
        let options = OptionParser(collecting: arguments, valued: Set(flagNames), booleans: booleans.union(["no-migrate"]), positionals: false)
        problems += options.problems.map(\.message)
        if options.flags.contains("no-migrate"), let setting = byKey["MIGRATE_ON_START"] {
            apply(setting, "false", source: "--no-migrate", to: &configuration, problems: &problems)
        }
        for setting in settings {
            let name = String(setting.flag.dropFirst(2))
            var value: String
            if let given = options.options[name] {
                value = given
            } else if options.flags.contains(name) {
                value = "true"
            } else {
                continue
            }
            if value.isEmpty && !setting.isBoolean { value = " " }
            apply(setting, value, source: setting.flag, to: &configuration, problems: &problems)
            explicit.insert(setting.key)
        }

        if configuration.development {
            configuration.applyDevelopmentDefaults(explicit: explicit)
        }
        problems += configuration.validate(requirements: requirements, checkingFiles: checkingFiles)
        guard problems.isEmpty else {
            let aboutSigning = requirements.contains(.signing) && !configuration.validateSigning(checkingFiles: checkingFiles).isEmpty
            throw ConfigurationError(problems: problems, aboutSigning: aboutSigning)
        }
        return configuration
    }

    private static func apply(_ setting: Setting, _ raw: String, source: String, to configuration: inout Configuration, problems: inout [String]) {
        do throws(SettingProblem) {
            try setting.apply(&configuration, raw)
        } catch {
            problems.append("\(source): \(error.message)")
        }
    }

    mutating func applyDevelopmentDefaults(explicit: Set<String>) {
        let signingKeys: Set<String> = ["PASS_CERTIFICATE", "PASS_PRIVATE_KEY", "PASS_P12", "WWDR_CERTIFICATE"]
        if explicit.isDisjoint(with: signingKeys) {
            let directory = Self.developmentCertificatesDirectory
            signing.certificate = "\(directory)/pass-certificate.pem"
            signing.privateKey = "\(directory)/pass-key.pem"
            signing.wwdrCertificate = "\(directory)/wwdr.pem"
        }
        if !explicit.contains("PUBLIC_URL") {
            let host = http.host == "0.0.0.0" ? "127.0.0.1" : http.host
            http.publicURL = URL(string: "http://\(host):\(http.port)")
        }
        if !explicit.contains("ALLOW_HTTP_PUBLIC_URL") { http.allowInsecurePublicURL = true }
        if !explicit.contains("APNS_MODE") { apns.mode = .log }
        if !explicit.contains("ORGANIZATION_NAME") { signing.organizationName = Self.developmentOrganizationName }
    }

    /// The organization name of development passes: every attendee's lock screen would show it,
    /// so outside development the operator must name the organization.
    public static let developmentOrganizationName = "PassServer"

    /// Cross-key checks; returns every problem.
    func validate(requirements: Requirements, checkingFiles: Bool = true) -> [String] {
        var problems: [String] = []
        if let problem = APNSConfiguration.headerProblem(pushType: apns.pushType, priority: apns.priority) {
            problems.append("APNS_PRIORITY: \(apns.priority.rawValue) with APNS_PUSH_TYPE=\(apns.pushType.rawValue): \(problem)")
        }
        if requirements.contains(.publishing) {
            if let url = http.publicURL {
                if url.scheme?.lowercased() != "https" && !http.allowInsecurePublicURL {
                    problems.append("PUBLIC_URL: must be https (Wallet refuses http); set ALLOW_HTTP_PUBLIC_URL=true for local development")
                }
            } else {
                problems.append("PUBLIC_URL: required (the https base URL phones reach this server at)")
            }
            if tokenSecret == nil && !development {
                problems.append("TOKEN_SECRET: required (e.g. `openssl rand -hex 32`; keep it forever)")
            }
            if signing.organizationName == nil {
                problems.append("ORGANIZATION_NAME: required: every pass shows it in Wallet and on the lock screen")
            }
        }
        if requirements.contains(.signing) {
            problems += validateSigning(checkingFiles: checkingFiles)
        }
        problems += validateMail()
        problems += validateGoogleWallet(checkingFiles: checkingFiles)
        if androidRelay.key != nil && androidRelay.url == nil {
            problems.append("ANDROID_PASS_PUSH_KEY: only used with ANDROID_PASS_PUSH_URL")
        }
        return problems
    }

    /// GOOGLE_WALLET_ISSUER_ID and GOOGLE_WALLET_SERVICE_ACCOUNT_FILE come together.
    private func validateGoogleWallet(checkingFiles: Bool) -> [String] {
        let google = googleWallet
        var problems: [String] = []
        switch (google.issuerID, google.serviceAccountFile) {
        case (nil, nil): return []
        case (_?, nil): problems.append("GOOGLE_WALLET_SERVICE_ACCOUNT_FILE: required with GOOGLE_WALLET_ISSUER_ID")
        case (nil, _?): problems.append("GOOGLE_WALLET_ISSUER_ID: required with GOOGLE_WALLET_SERVICE_ACCOUNT_FILE")
        case (_?, let file?):
            if checkingFiles && !FileManager.default.isReadableFile(atPath: file) {
                problems.append("GOOGLE_WALLET_SERVICE_ACCOUNT_FILE: cannot read '\(file)'")
            }
        }
        if checkingFiles, let caFile = google.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            problems.append("GOOGLE_WALLET_CA_FILE: cannot read '\(caFile)'")
        }
        return problems
    }

    /// SMTP_URL with SMTP_PASSWORD and SMTP_ALLOW_PLAINTEXT, and the MAIL_FROM it needs.
    private func validateMail() -> [String] {
        guard mail.isEnabled else { return [] }
        var problems: [String] = []
        do {
            _ = try mail.smtp()
        } catch {
            problems.append("SMTP_URL: \(error.message)")
        }
        if mail.from == nil { problems.append("MAIL_FROM: required with SMTP_URL (the From of every email)") }
        if let caFile = mail.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            problems.append("SMTP_CA_FILE: cannot read '\(caFile)'")
        }
        return problems
    }

    private func validateSigning(checkingFiles: Bool) -> [String] {
        var problems: [String] = []
        let usesP12 = signing.p12 != nil
        let usesPEM = signing.certificate != nil || signing.privateKey != nil
        if usesP12 && usesPEM {
            problems.append("PASS_P12: give either PASS_P12 or PASS_CERTIFICATE + PASS_PRIVATE_KEY, not both")
        } else if !usesP12 && !usesPEM {
            problems.append("PASS_CERTIFICATE: required (or PASS_P12), the Pass Type ID certificate; `make run` uses development certificates")
        } else if usesPEM {
            if signing.certificate == nil { problems.append("PASS_CERTIFICATE: required with PASS_PRIVATE_KEY") }
            if signing.privateKey == nil { problems.append("PASS_PRIVATE_KEY: required with PASS_CERTIFICATE") }
        }
        if signing.wwdrCertificate == nil {
            problems.append("WWDR_CERTIFICATE: required, Apple's WWDR G4 intermediate")
        }
        guard checkingFiles else { return problems }
        return problems + unreadableFiles().map { "\($0.key): cannot read '\($0.path)'" }
    }

    /// The certificate and key files given that this process cannot read, by setting. Development
    /// certificates are generated at start, so only operator-given files must exist beforehand.
    func unreadableFiles() -> [(key: String, path: String)] {
        guard !development else { return [] }
        let files: [(String, String?)] = [
            ("PASS_CERTIFICATE", signing.certificate), ("PASS_PRIVATE_KEY", signing.privateKey),
            ("PASS_P12", signing.p12), ("WWDR_CERTIFICATE", signing.wwdrCertificate), ("APNS_CA_FILE", apns.caFile),
        ]
        return files.compactMap { key, path in
            guard let path, !FileManager.default.isReadableFile(atPath: path) else { return nil }
            return (key, path)
        }
    }
}

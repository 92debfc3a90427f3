import Certificates
import Foundation
import Storage

/// Why `pass-server serve` (or a command that signs passes) cannot start: every problem the
/// start-up found, each naming the step, the setting to change and a one-line hint.
///
/// Printed as one `SETTING: problem` line and one `hint:` line per problem, so a person fixes them
/// all in one round; never a type name or a system error dump. The command line exits 64 on it.
public struct StartupError: Error, Sendable, CustomStringConvertible {
    /// The named steps of the start-up, in the order they run.
    public enum Step: String, Sendable, CaseIterable {
        /// PUBLIC_URL, ORGANIZATION_NAME and the other settings only a server needs.
        case settings
        /// TOKEN_SECRET (or the development secret file).
        case tokenSecret = "token secret"
        /// Whether the certificate and key files given can be read.
        case files
        /// The pass signing identity: certificate, key and WWDR intermediate.
        case signing
        /// The certificates whose expiry is watched (APNS_CA_FILE).
        case watchedCertificates = "watched certificates"
        /// Opening the database.
        case database
        /// Applying pending migrations.
        case migrations
        /// Binding the HTTP port.
        case listener
        /// The push sender (the APNs client when APNS_MODE is live).
        case push
        /// The email sender, when SMTP_URL is set.
        case mail
        /// The Google Wallet sender, when GOOGLE_WALLET_ISSUER_ID is set.
        case googleWallet
    }

    /// What kind of problem, for programs and tests.
    public enum Code: String, Sendable {
        case missingSetting
        case invalidSetting
        case unreadableFile
        case keyMismatch
        case wrongWWDR
        case expiredCertificate
        case badPassword
        case databaseUnreachable
        case migrationFailed
        case portInUse
        case other
    }

    /// One problem: the step it belongs to, the setting it is about, what is wrong and what to do.
    public struct Problem: Sendable, Equatable {
        public var step: Step
        public var code: Code
        /// The environment variable to change (`DATABASE_URL`), or a file for a file of its own.
        public var setting: String
        public var message: String
        public var hint: String

        public init(step: Step, code: Code, setting: String, message: String, hint: String) {
            self.step = step
            self.code = code
            self.setting = setting
            self.message = message
            self.hint = hint
        }
    }

    public var problems: [Problem]

    public init(_ problems: [Problem]) {
        self.problems = problems
    }

    /// The problems of settings that could not be loaded, each with a hint.
    public init(_ error: ConfigurationError) {
        self.init(Bootstrap.problems(from: error, step: .settings, configuration: Configuration()))
    }

    public var description: String {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return "cannot start (\(count)):\n" + problems.map { "  - \($0.setting): \($0.message)\n    hint: \($0.hint)" }.joined(separator: "\n")
    }

    /// An error's reason for a person: the message of the errors we know, the first line only.
    package static func reason(of error: any Error) -> String {
        let text = switch error {
        case let error as PGError: error.message
        case let error as SQLiteError: error.message
        case let error as StorageError: error.reason
        case let error as CertificateError: error.message
        case let error as POSIXError: String(cString: strerror(error.code.rawValue))
        default: (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
        }
        return text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? text
    }
}

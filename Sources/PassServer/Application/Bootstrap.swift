import Certificates
import Foundation
import HTTPServer
import Storage

/// The start-up of `Application.init` as named steps. Independent steps all run even when an
/// earlier one failed, and each failure becomes a `StartupError.Problem` with a hint; `finish()`
/// throws them together.
struct Bootstrap {
    let configuration: Configuration
    private(set) var problems: [StartupError.Problem] = []

    init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Runs `body` as `step`; a failure is recorded and the result is nil.
    @discardableResult
    mutating func run<T>(_ step: StartupError.Step, _ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch {
            problems += Self.problems(from: error, step: step, configuration: configuration)
            return nil
        }
    }

    /// `value`, or a recorded "required" problem for `setting` when it is nil.
    mutating func require<T>(_ value: T?, setting: String, purpose: String) -> T? {
        if value == nil {
            problems.append(StartupError.Problem(
                step: .settings, code: .missingSetting, setting: setting, message: "required",
                hint: "set \(setting) in the environment or as its flag: \(purpose)"
            ))
        }
        return value
    }

    /// Records every certificate or key file that cannot be read; true when all can.
    mutating func checkFiles() -> Bool {
        let unreadable = configuration.unreadableFiles()
        for (key, path) in unreadable {
            problems.append(StartupError.Problem(
                step: .files, code: .unreadableFile, setting: key, message: "cannot read '\(path)'",
                hint: "check that the file exists and this user may read it, or correct \(key)"
            ))
        }
        return unreadable.isEmpty
    }

    /// Throws every problem recorded so far, together.
    func finish() throws(StartupError) {
        guard problems.isEmpty else { throw StartupError(problems) }
    }

    // MARK: Translating the errors of each part

    static func problems(from error: any Error, step: StartupError.Step, configuration: Configuration) -> [StartupError.Problem] {
        switch error {
        case let error as StartupError:
            return error.problems
        case let error as ConfigurationError:
            return error.problems.map { problem in
                let parts = problem.split(separator: ": ", maxSplits: 1).map(String.init)
                return StartupError.Problem(
                    step: step, code: .invalidSetting, setting: parts.count == 2 ? parts[0] : Self.setting(of: step), message: parts.last ?? problem,
                    hint: "see `pass-server serve --help` for what each setting takes"
                )
            }
        case let error as CertificateError:
            return [certificateProblem(error, setting: Self.setting(of: step), step: step)]
        case let error as StorageError:
            return [databaseProblem(error, step: step)]
        case let error as HTTPServerError:
            return [listenerProblem(error, http: configuration.http)]
        default:
            return [StartupError.Problem(
                step: step, code: .other, setting: Self.setting(of: step), message: StartupError.reason(of: error),
                hint: "check \(Self.setting(of: step)); the server log at debug level has the details"
            )]
        }
    }

    /// A certificate problem of `setting`, with what to do about its kind.
    static func certificateProblem(_ error: CertificateError, setting: String, step: StartupError.Step) -> StartupError.Problem {
        let (code, hint): (StartupError.Code, String) = switch error.code {
        case .keyMismatch:
            (.keyMismatch, "set PASS_PRIVATE_KEY to the key the certificate was issued for (the one its signing request was made with)")
        case .wwdrMismatch, .wwdrMissing:
            (.wrongWWDR, "set WWDR_CERTIFICATE to the Apple WWDR intermediate that issued the pass certificate (G4 since 2022)")
        case .unreadable:
            (.unreadableFile, "check that the file exists, this user may read it, and it is a PEM or DER certificate or key")
        case .expired, .notYetValid:
            (.expiredCertificate, "renew it: see Certificates/README.md")
        case .badPassword:
            (.badPassword, "set PASS_PRIVATE_KEY_PASSWORD (or PASS_P12_PASSWORD) to the password it was exported with")
        default:
            (.other, "see docs/deploying.md for the certificates a server needs")
        }
        return StartupError.Problem(step: step, code: code, setting: setting, message: error.message, hint: hint)
    }

    static func databaseProblem(_ error: StorageError, step: StartupError.Step) -> StartupError.Problem {
        if step == .migrations, !error.isTransient {
            return StartupError.Problem(
                step: step, code: .migrationFailed, setting: "DATABASE_URL", message: "migrating the database failed: \(error.reason)",
                hint: "run `pass-server migrate` against the same DATABASE_URL to retry; see docs/storage.md on migrations"
            )
        }
        return StartupError.Problem(
            step: step, code: .databaseUnreachable, setting: "DATABASE_URL", message: error.reason,
            hint: "start the database server or correct DATABASE_URL (postgres://user:pass@host:port/db or sqlite:///absolute/path)"
        )
    }

    static func listenerProblem(_ error: HTTPServerError, http: Configuration.HTTP) -> StartupError.Problem {
        if error.code == .addressInUse {
            return StartupError.Problem(
                step: .listener, code: .portInUse, setting: "HTTP_PORT", message: "\(http.host):\(http.port) is in use by another process",
                hint: "stop the process listening there, or set HTTP_PORT to a free port (0 picks one)"
            )
        }
        return StartupError.Problem(
            step: .listener, code: .invalidSetting, setting: error.code == .invalidHost ? "HTTP_HOST" : "HTTP_PORT", message: error.message,
            hint: "HTTP_HOST takes a numeric IPv4 or IPv6 address or localhost; HTTP_PORT a port this user may bind"
        )
    }

    /// The setting a step's problems are about when the error does not say.
    static func setting(of step: StartupError.Step) -> String {
        switch step {
        case .settings: "configuration"
        case .tokenSecret: "TOKEN_SECRET"
        case .files, .signing: "PASS_CERTIFICATE"
        case .watchedCertificates: "APNS_CA_FILE"
        case .database, .migrations: "DATABASE_URL"
        case .listener: "HTTP_PORT"
        case .push: "APNS_URL"
        case .mail: "SMTP_URL"
        case .googleWallet: "GOOGLE_WALLET_SERVICE_ACCOUNT_FILE"
        }
    }
}

import Foundation
import Logging
import Synchronization

/// Watches the expiry of the certificates the server depends on: the pass certificate, the WWDR
/// intermediate and the CA file trusted for APNs. From `warningWindow` before a certificate expires
/// `/readyz` lists a warning (and stays 200) and the log warns, at most once a day per certificate;
/// `/metrics` always shows every expiry.
final class CertificateMonitor: Sendable {
    /// One certificate watched.
    struct Certificate: Sendable, Equatable {
        /// The metrics label: `pass`, `wwdr` or `apns_ca`.
        var name: String
        /// What an operator calls it, for messages.
        var title: String
        var subject: String
        var notAfter: Date
    }

    static let warningWindow: TimeInterval = 30 * 86_400
    static let logInterval: TimeInterval = 86_400

    let certificates: [Certificate]
    private let readiness: Readiness
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// When each certificate's warning was last logged.
    private let lastLogged = Mutex<[String: Date]>([:])

    init(certificates: [Certificate], readiness: Readiness, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.certificates = certificates
        self.readiness = readiness
        self.logger = logger
        self.now = now
    }

    /// The warning for `certificate` at `now`: nil while it expires more than `warningWindow` later.
    static func warning(for certificate: Certificate, now: Date) -> String? {
        let remaining = certificate.notAfter.timeIntervalSince(now)
        guard remaining <= warningWindow else { return nil }
        let date = ISODate.format(certificate.notAfter)
        guard remaining > 0 else { return "\(certificate.title) expired on \(date): renew it" }
        let days = Int(remaining / 86_400)
        let when = days == 0 ? "in less than a day" : days == 1 ? "in 1 day" : "in \(days) days"
        return "\(certificate.title) expires \(when), on \(date): renew it"
    }

    /// Updates the readiness warnings and logs the warnings not logged within the last day.
    func check() {
        let time = now()
        for certificate in certificates {
            let warning = Self.warning(for: certificate, now: time)
            readiness.warn("certificate.\(certificate.name)", warning: warning)
            let due = lastLogged.withLock { last in
                guard warning != nil else {
                    last[certificate.name] = nil
                    return false
                }
                if let previous = last[certificate.name], time.timeIntervalSince(previous) < Self.logInterval { return false }
                last[certificate.name] = time
                return true
            }
            if due, let warning {
                logger.warning("certificate expires soon", [
                    "certificate": certificate.name, "subject": certificate.subject,
                    "not_after": ISODate.format(certificate.notAfter), "detail": warning,
                ])
            }
        }
    }
}

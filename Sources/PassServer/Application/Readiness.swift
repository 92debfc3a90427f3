import Synchronization

/// What `/readyz` reports, gathered from every component: problems (the answer is 503) and
/// warnings (listed, the answer stays 200).
///
/// Components either set a standing finding (`report`, `warn`: the push dispatcher's halt, a
/// certificate close to expiry from `CertificateMonitor`) or add a check that is evaluated on every
/// request (`addCheck`: APNs unreachable while pushes wait).
final class Readiness: Sendable {
    /// One line of the report.
    struct Finding: Sendable, Equatable, Encodable {
        enum Severity: Sendable, Equatable { case problem, warning }

        var severity: Severity
        /// Who reports it: `database`, `apns`, …
        var component: String
        var message: String

        private enum CodingKeys: String, CodingKey { case component, message }
    }

    /// A check run on every `/readyz` request; it must be quick and must not throw.
    typealias Check = @Sendable () -> [Finding]

    private struct Key: Hashable {
        var severity: Finding.Severity
        var component: String
    }

    private let standing = Mutex<[Key: String]>([:])
    private let checks = Mutex<[Check]>([])

    /// Sets (or with nil clears) the standing problem of `component`.
    func report(_ component: String, problem: String?) {
        standing.withLock { $0[Key(severity: .problem, component: component)] = problem }
    }

    /// Sets (or with nil clears) the standing warning of `component`.
    func warn(_ component: String, warning: String?) {
        standing.withLock { $0[Key(severity: .warning, component: component)] = warning }
    }

    func addCheck(_ check: @escaping Check) {
        checks.withLock { $0.append(check) }
    }

    /// Standing findings sorted by component, then what the checks find, in the order they were added.
    func evaluate() -> [Finding] {
        let stored = standing.withLock { entries in
            entries.map { Finding(severity: $0.key.severity, component: $0.key.component, message: $0.value) }
        }.sorted { $0.component < $1.component }
        let checks = self.checks.withLock { $0 }
        return stored + checks.flatMap { $0() }
    }
}

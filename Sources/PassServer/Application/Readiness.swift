import Synchronization

/// Problems that make this process unready, keyed by the component reporting them. The push
/// dispatcher reports APNs credential and configuration errors here; `/readyz` shows them.
///
/// Warnings (a certificate close to expiry) are listed by `/readyz` too but leave it ready.
final class Readiness: Sendable {
    private let problems = Mutex<[String: String]>([:])
    private let warnings = Mutex<[String: String]>([:])

    func report(_ component: String, problem: String?) {
        problems.withLock { $0[component] = problem }
    }

    /// Current problems, sorted by component.
    var current: [(component: String, problem: String)] {
        problems.withLock { $0.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
    }

    /// Sets (or with nil clears) the warning of `component`.
    func warn(_ component: String, warning: String?) {
        warnings.withLock { $0[component] = warning }
    }

    /// Current warnings, sorted by component.
    var currentWarnings: [String] {
        warnings.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
    }
}

import Synchronization

/// Problems that make this process unready, keyed by the component reporting them. The push
/// dispatcher reports APNs credential and configuration errors here; `/readyz` shows them.
final class Readiness: Sendable {
    private let problems = Mutex<[String: String]>([:])

    func report(_ component: String, problem: String?) {
        problems.withLock { $0[component] = problem }
    }

    /// Current problems, sorted by component.
    var current: [(component: String, problem: String)] {
        problems.withLock { $0.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
    }
}

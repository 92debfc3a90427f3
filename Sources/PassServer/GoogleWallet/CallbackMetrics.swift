import GoogleWallet
import Synchronization

/// Google Wallet callbacks answered since the process started, by outcome
/// (`passserver_google_wallet_callbacks_total`).
final class CallbackMetrics: Sendable {
    /// Taken: `save` and `del`; `replayed`: a nonce seen before; every refusal by its code.
    static let outcomes: [String] = ["save", "del", "replayed", "unknown_class", "unknown_object"]
        + CallbackRefusal.Reason.allCases.map(\.rawValue)

    private let counts = Mutex<[String: Int]>([:])

    func record(_ outcome: String) {
        counts.withLock { $0[outcome, default: 0] += 1 }
    }

    /// Every outcome with its count (zeros included), in `outcomes` order.
    var snapshot: [(outcome: String, count: Int)] {
        let current = counts.withLock { $0 }
        return Self.outcomes.map { ($0, current[$0] ?? 0) }
    }
}

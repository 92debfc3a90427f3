/// Exponential reconnect backoff with jitter: 0 after a clean history, then base, 2×base, … up to `maximum`.
///
/// Pure: the caller supplies the failure count and a jitter fraction in 0...1 (random in production,
/// fixed in tests), so the schedule is testable without clocks. The APNs client reconnects on it;
/// the phone fleet simulator (`Fleet`) retries failed fetches on it, as Wallet does.
package struct Backoff: Sendable, Equatable {
    /// Delay after the first failure, seconds.
    package var base: Double = 0.1
    /// Upper bound of the delay, seconds.
    package var maximum: Double = 30

    package init(base: Double = 0.1, maximum: Double = 30) {
        self.base = base
        self.maximum = maximum
    }

    /// Seconds to wait before the next attempt after `failures` consecutive failures.
    /// `jitter` spreads the delay over [half, full] so many clients do not reconnect in lockstep.
    package func delay(afterFailures failures: Int, jitter: Double) -> Double {
        guard failures > 0 else { return 0 }
        let exponent = min(failures - 1, 30)
        let full = min(maximum, base * Double(1 << exponent))
        let fraction = min(max(jitter, 0), 1)
        return full * (0.5 + 0.5 * fraction)
    }
}

/// Exponential backoff: 0 after a clean history, then base, 2×base, … up to `maximum`, spread by
/// a jitter the caller supplies.
///
/// Pure: the caller supplies the failure count and a jitter fraction in 0...1 (random in
/// production, fixed in tests), so the schedule is testable without clocks. The APNs client
/// reconnects on it, the phone fleet simulator (`Fleet`) retries failed fetches on it as Wallet
/// does, the outboxes retry messages on it and background loops wait out a database outage on it.
package struct Backoff: Sendable, Equatable {
    /// Delay after the first failure, seconds.
    package var base: Double = 0.1
    /// Upper bound of the delay, seconds.
    package var maximum: Double = 30

    package init(base: Double = 0.1, maximum: Double = 30) {
        self.base = base
        self.maximum = maximum
    }

    /// The full delay after `failures` consecutive failures, before any jitter:
    /// `base·2^(failures−1)`, capped at `maximum`; 0 when nothing failed.
    package func ceiling(afterFailures failures: Int) -> Double {
        guard failures > 0 else { return 0 }
        // 2^30 × any sane base is past any sane maximum; the cap keeps the shift defined.
        let exponent = min(failures - 1, 30)
        return min(maximum, base * Double(1 << exponent))
    }

    /// Seconds to wait before the next attempt after `failures` consecutive failures.
    /// `jitter` spreads the delay over [half, full] so many clients do not reconnect in lockstep.
    package func delay(afterFailures failures: Int, jitter: Double) -> Double {
        ceiling(afterFailures: failures) * (0.5 + 0.5 * Self.clamped(jitter))
    }

    /// "Full jitter": uniform in [base/2, ceiling] (`random` in 0...1), so retries of many
    /// messages that failed together spread over the whole window from the first attempt on.
    package func fullJitterDelay(afterFailures failures: Int, random: Double) -> Double {
        let ceiling = ceiling(afterFailures: max(1, failures))
        let floor = min(ceiling, base / 2)
        return floor + (ceiling - floor) * Self.clamped(random)
    }

    private static func clamped(_ fraction: Double) -> Double { min(max(fraction, 0), 1) }
}

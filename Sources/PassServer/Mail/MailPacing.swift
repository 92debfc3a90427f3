import Foundation

/// `MAIL_RATE` as the mail outbox's pacing: a token bucket that fills at `rate` per second and
/// holds at most `burst` (a fifth of a second's worth, at least one), so no more than `rate`
/// messages a second leave on average and never more than `burst` at once.
struct MailPacing: OutboxPacing {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var updated: Date?

    init(rate: Double) {
        self.rate = max(rate, 0.001)
        burst = max(1, (rate / 5).rounded(.down))
        tokens = burst
    }

    mutating func allowance(now: Date) -> Int? {
        refill(now)
        return Int(tokens.rounded(.down))
    }

    mutating func sent(_ count: Int, now: Date) {
        refill(now)
        tokens -= Double(count)
    }

    /// Until one more token is there.
    var recheckInterval: TimeInterval { min(1, max(0.005, 1 / rate)) }

    private mutating func refill(_ now: Date) {
        if let updated { tokens = min(burst, tokens + max(0, now.timeIntervalSince(updated)) * rate) }
        updated = now
    }
}

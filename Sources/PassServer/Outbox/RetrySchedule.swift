import Foundation
import SystemSupport

/// When a message that failed for now is tried again: exponential backoff with full jitter, and a
/// limit on how long a message may keep being retried. Shared by the outboxes' reply policies.
struct RetrySchedule: Sendable, Equatable {
    /// First retry delay; doubles each attempt up to `maxDelay`.
    var baseDelay: TimeInterval
    var maxDelay: TimeInterval
    /// A message first queued longer ago than this is given up on instead.
    var maxRetryAge: TimeInterval

    /// Uniform in [base/2, base·2^(attempts-1)], capped at `maxDelay`; `random` in 0..<1.
    func delay(attempts: Int, random: Double) -> TimeInterval {
        Backoff(base: baseDelay, maximum: maxDelay).fullJitterDelay(afterFailures: attempts, random: random)
    }

    /// The delay before the next attempt, or nil when that attempt would come after `maxRetryAge`.
    func retry(attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> TimeInterval? {
        let wait = delay(attempts: attempts, random: random)
        return now.addingTimeInterval(wait).timeIntervalSince(enqueuedAt) > maxRetryAge ? nil : wait
    }
}

import Foundation

/// What one Google Wallet row came to, after the sender's own handling of Google's answers (an
/// insert answered 409 is sent again as a patch, a patch answered 404 as an insert, a 401 renews
/// the access token once).
enum GoogleDelivery: Sendable, Equatable {
    /// Google holds the class or object as written; `notified`: the update was a notifying one.
    case synced(status: Int, notified: Bool)
    /// Google answered with an error: its HTTP status and its reason (`error.status`: message).
    case refused(status: Int, reason: String)
    /// No answer: the connection failed, dropped or timed out.
    case unreachable(String)
    /// The row's class or object cannot be written (its event is gone): nothing to send.
    case unwritable(String)
    /// Not sent (the sender stopped, the claim ran out): tried again at once.
    case notSent(String)

    /// Whether Google answered (for reachability): true when it did, false when it could not be
    /// reached, nil when the row was never sent.
    var reachedGoogle: Bool? {
        switch self {
        case .synced, .refused: true
        case .unreachable: false
        case .unwritable, .notSent: nil
        }
    }
}

/// What one answer of Google means for its row. Pure, tested without a server.
///
/// - synced: done; the row leaves the outbox.
/// - 429 (quota), 5xx, no answer: tried again with backoff and jitter until the schedule's
///   `maxRetryAge`, then failed with the last answer.
/// - 404 for an object: its class is not at Google yet (its insert is in flight or retried):
///   tried again like a 5xx.
/// - 401 or 403 (after the sender renewed the token once): our credentials or the issuer's
///   permissions are refused; every call would get it, so all sending pauses (`halt`) and one
///   call probes again later.
/// - any other 4xx (400 `INVALID_ARGUMENT` and the like): failed for that row only, with Google's
///   reason kept; the other rows flow.
struct GooglePolicy: OutboxPolicy {
    var schedule: RetrySchedule

    typealias Effect = Never

    func decide(_ delivery: GoogleDelivery, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> OutboxDecision<Never> {
        switch delivery {
        case .synced(let status, _):
            return OutboxDecision(settlement: .completed, status: status, reason: nil, result: .synced, accepted: true)
        case .refused(let status, let reason) where status == 401 || status == 403:
            return OutboxDecision(settlement: .halt(why: "\(status) \(reason)"), status: status, reason: reason, result: .halted)
        case .refused(let status, let reason) where status == 429 || status >= 500 || status == 404:
            return retry(status: status, reason: reason, attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random)
        case .refused(let status, let reason):
            return OutboxDecision(
                settlement: .failed(reason: "\(status) \(reason)"), status: status, reason: reason, result: .failed(reason: "refused"), rejected: true
            )
        case .unreachable(let why):
            return retry(status: 0, reason: why, attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random)
        case .unwritable(let problem):
            // Nothing to bring up to date (the event or ticket is gone): the row is done.
            return OutboxDecision(settlement: .completed, status: 0, reason: problem, result: .skipped)
        case .notSent(let why):
            return OutboxDecision(settlement: .retry(after: 0), status: 0, reason: why, result: .deferred)
        }
    }

    private func retry(status: Int, reason: String, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> OutboxDecision<Never> {
        guard let wait = schedule.retry(attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random) else {
            return OutboxDecision(
                settlement: .failed(reason: "gave up after \(attempts) attempts: \(status) \(reason)"), status: status, reason: reason,
                result: .failed(reason: "gave_up")
            )
        }
        return OutboxDecision(settlement: .retry(after: wait), status: status, reason: reason, result: .retried)
    }
}

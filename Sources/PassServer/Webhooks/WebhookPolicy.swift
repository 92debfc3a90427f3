import Foundation
import Storage

/// What one delivery came to at the sender.
enum WebhookAnswer: Sendable, Equatable {
    /// The endpoint answered with this HTTP status (a redirect is an answer too: none is followed).
    case answered(status: Int)
    /// No answer: the connection could not be made, broke, or the timeout passed first.
    case unreachable(String)
    /// Not sent: the target is not allowed (its address, or its URL no longer passes the checks).
    case blocked(String)
    /// Not sent: the endpoint failed to answer moments ago, so its waiting deliveries wait longer
    /// rather than each waiting for its own timeout.
    case deferred(String)
    /// Not sent: the endpoint is disabled; the delivery is held until it is enabled.
    case held
    /// Nothing can be sent: the webhook event cannot be read, or the endpoint is gone.
    case unsendable(String)
    /// Not sent (the sender is stopping, or the claim would run out first): tried again at once.
    case notSent(String)

    /// What the attempt says of the endpoint's health.
    var attempt: WebhookAttempt.Outcome {
        switch self {
        case .answered(let status) where (200...299).contains(status): .succeeded
        case .answered(let status): .failed(reason: "answered \(status)")
        case .unreachable(let why), .blocked(let why): .failed(reason: why)
        case .deferred, .held, .unsendable, .notSent: .notAttempted
        }
    }

    /// The HTTP status of the answer, 0 when none came.
    var status: Int {
        if case .answered(let status) = self { status } else { 0 }
    }
}

/// What one delivery's answer means for its row. Pure, tested without a server.
///
/// - 2xx within the timeout: delivered.
/// - any other status (3xx included), no answer, or deferred after its endpoint just failed:
///   tried again with exponential backoff and full jitter (`RetrySchedule`), until the schedule's
///   `maxRetryAge`, then failed with the last answer.
/// - blocked (the target's address is not allowed): failed at once, with why.
/// - nothing to send (the webhook event is unreadable, the endpoint gone): failed.
/// - held (endpoint disabled) or not sent: released at once (the record holds a disabled
///   endpoint's rows).
///
/// There is no halt: each endpoint is someone else's server, and one failing stops no other.
struct WebhookPolicy: OutboxPolicy {
    var schedule: RetrySchedule

    typealias Effect = Never

    func decide(_ answer: WebhookAnswer, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> OutboxDecision<Never> {
        switch answer {
        case .answered(let status) where (200...299).contains(status):
            return OutboxDecision(settlement: .completed, status: status, reason: nil, result: .delivered, accepted: true)
        case .answered(let status):
            return retry(status: status, reason: "answered \(status)",
                         attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random)
        case .unreachable(let why):
            return retry(status: 0, reason: why, attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random)
        case .deferred(let why):
            return retry(status: 0, reason: why, attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random, result: .deferred)
        case .blocked(let why):
            return OutboxDecision(settlement: .failed(reason: why), status: 0, reason: why, result: .blocked)
        case .unsendable(let why):
            return OutboxDecision(settlement: .failed(reason: why), status: 0, reason: why, result: .failed(reason: "unsendable"))
        case .held:
            return OutboxDecision(settlement: .retry(after: 0), status: 0, reason: "endpoint disabled", result: .held)
        case .notSent(let why):
            return OutboxDecision(settlement: .retry(after: 0), status: 0, reason: why, result: .notSent)
        }
    }

    private func retry(
        status: Int, reason: String, attempts: Int, enqueuedAt: Date, now: Date, random: Double, result: OutboxOutcome<Never> = .retried
    ) -> OutboxDecision<Never> {
        guard let wait = schedule.retry(attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random) else {
            return OutboxDecision(
                settlement: .failed(reason: "gave up after \(attempts) attempts: \(reason)"), status: status, reason: reason,
                result: .failed(reason: "gave_up")
            )
        }
        return OutboxDecision(settlement: .retry(after: wait), status: status, reason: reason, result: result)
    }
}

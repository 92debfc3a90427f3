import APNs
import Foundation

/// What to do with an outbox row after one delivery attempt: APNs's reply table as a pure
/// function of typed answers, tested without sockets.
///
/// The rule behind it: an answer about one push token (410, `BadDeviceToken`,
/// `DeviceTokenNotForTopic`) only ever affects that token's registrations, because an attendee
/// controls what token they register. Only answers about our credentials or topic as a whole
/// (403, `BadTopic`, `TopicDisallowed`, `MissingTopic`) pause sending for everyone.
struct PushPolicy: Sendable, Equatable {
    /// Retryable failures give up once the row is older than this.
    var maxRetryAge: TimeInterval
    /// First retry delay; doubles each attempt up to `maxDelay`, with full jitter.
    var baseDelay: TimeInterval = 1
    var maxDelay: TimeInterval = 300

    init(maxRetryAge: TimeInterval, baseDelay: TimeInterval = 1, maxDelay: TimeInterval = 300) {
        self.maxRetryAge = maxRetryAge
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The outcome of one attempt, reduced to what the policy needs.
    enum Outcome: Sendable, Equatable {
        /// APNs answered with an HTTP status and, on errors, a reason and (for 410) a timestamp.
        case answered(status: Int, reason: APNSReason?, timestamp: Date?)
        /// APNs could not be reached: the TCP connect or the TLS handshake failed.
        case unreachable(String)
        /// No answer from a reachable APNs: connection lost, timeout, refused stream.
        case transportFailure(String)
        /// Not sent: `APNS_MODE=log` only logged it.
        case logged
    }

    enum Action: Sendable, Equatable {
        /// Done: remove the row.
        case delivered
        /// Done without sending (`APNS_MODE=log`): remove the row.
        case logged
        /// The token is dead or not ours to push to: delete its registrations (not those renewed
        /// after `unlessRenewedAfter`), remove the row.
        case prune(reason: APNSReason, unlessRenewedAfter: Date?)
        /// A credential or topic problem: keep the row pending, pause all sending, report it on /readyz.
        case halt(status: Int, reason: APNSReason?)
        /// Try again after this many seconds.
        case retry(after: TimeInterval)
        /// Give up on this row and mark it failed.
        case fail(Failure)
    }

    /// Why a row was given up on.
    enum Failure: Sendable, Equatable, CustomStringConvertible {
        /// APNs refused the request itself (a 400 such as `BadPriority`, or 404, 405, 413): a
        /// mistake in how we build requests, which sending again cannot fix.
        case rejected(status: Int, reason: APNSReason?)
        /// Retryable failures went on past `maxRetryAge`.
        case gaveUp(attempts: Int, last: String)

        /// A bounded label for metrics: Apple's reason, or a fixed word.
        var metricLabel: String {
            switch self {
            case .rejected(_, let reason?): return reason.metricLabel
            case .rejected: return "no_reason"
            case .gaveUp: return "retries_exhausted"
            }
        }

        var description: String {
            switch self {
            case .rejected(let status, let reason): "APNs refused the request: \(status) \(reason?.rawValue ?? "without a reason")"
            case .gaveUp(let attempts, let last): "gave up after \(attempts) attempts: \(last.trimmingCharacters(in: .whitespaces))"
            }
        }
    }

    /// 400 reasons that are about our topic, so every push would get them.
    static let topicReasons: Set<APNSReason> = [.badTopic, .topicDisallowed, .missingTopic]
    /// 400 reasons that are about one push token.
    static let tokenReasons: Set<APNSReason> = [.badDeviceToken, .deviceTokenNotForTopic]

    /// Decides the action for `outcome` on the `attempts`-th try (1-based) of a row first enqueued at
    /// `enqueuedAt`. `random` is a value in 0..<1 for jitter (injected for tests).
    func action(for outcome: Outcome, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> Action {
        switch outcome {
        case .logged:
            return .logged
        case .answered(200, _, _):
            return .delivered
        case .answered(410, let reason, let timestamp):
            return .prune(reason: reason ?? .unregistered, unlessRenewedAfter: timestamp)
        case .answered(400, let reason?, _) where Self.tokenReasons.contains(reason):
            return .prune(reason: reason, unlessRenewedAfter: nil)
        case .answered(400, let reason?, _) where Self.topicReasons.contains(reason):
            return .halt(status: 400, reason: reason)
        case .answered(403, let reason, _):
            return .halt(status: 403, reason: reason)
        case .answered(let status, let reason, _) where status == 429 || status >= 500:
            return retryOrFail(last: "\(status) \(reason?.rawValue ?? "")", attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random)
        case .answered(let status, let reason, _):
            return .fail(.rejected(status: status, reason: reason))
        case .unreachable(let message), .transportFailure(let message):
            return retryOrFail(last: message, attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random)
        }
    }

    /// The backoff of this policy (`RetrySchedule`).
    var schedule: RetrySchedule { RetrySchedule(baseDelay: baseDelay, maxDelay: maxDelay, maxRetryAge: maxRetryAge) }

    /// Exponential backoff with full jitter: uniform in [base/2, base·2^(attempts-1)], capped.
    func delay(attempts: Int, random: Double) -> TimeInterval {
        schedule.delay(attempts: attempts, random: random)
    }

    private func retryOrFail(last: String, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> Action {
        guard let wait = schedule.retry(attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random) else {
            return .fail(.gaveUp(attempts: attempts, last: last))
        }
        return .retry(after: wait)
    }
}

extension APNSReason {
    /// A bounded label for metrics: Apple's spelling, or `unknown` for a reason this version does
    /// not know (so whatever text arrives never becomes a label).
    var metricLabel: String {
        if case .unknown = self { return "unknown" }
        return rawValue
    }
}

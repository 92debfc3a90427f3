import Foundation

/// What to do with an outbox row after one delivery attempt: the reply table of
/// `shared/protocol.md` §3 as a pure function, tested without sockets.
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
        case answered(status: Int, reason: String?, timestamp: Date?)
        /// No answer: connection loss, timeout, refused stream.
        case transportFailure(String)
    }

    enum Action: Sendable, Equatable {
        /// Done: remove the row.
        case delivered
        /// The token is dead: delete registrations of it (not those renewed after `unlessRenewedAfter`), remove the row.
        case prune(unlessRenewedAfter: Date?)
        /// A configuration or credential problem: keep the row pending, stop sending, report it on /readyz.
        case halt(reason: String)
        /// Try again after this many seconds.
        case retry(after: TimeInterval)
        /// Give up on this row and mark it failed.
        case fail(reason: String)
    }

    /// Decides the action for `outcome` on the `attempts`-th try (1-based) of a row first enqueued at
    /// `enqueuedAt`. `random` is a value in 0..<1 for jitter (injected for tests).
    func action(for outcome: Outcome, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> Action {
        switch outcome {
        case .answered(200, _, _):
            return .delivered
        case .answered(410, _, let timestamp):
            return .prune(unlessRenewedAfter: timestamp)
        case .answered(400, "BadDeviceToken", _):
            return .prune(unlessRenewedAfter: nil)
        case .answered(let status, let reason, _) where status == 400 || status == 403 || status == 405 || status == 413:
            return .halt(reason: "APNs answered \(status) \(reason ?? "without a reason")")
        case .answered(let status, let reason, _) where status == 429 || status >= 500:
            return retryOrFail(reason: "\(status) \(reason ?? "")", attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random)
        case .answered(let status, let reason, _):
            return .fail(reason: "unexpected APNs status \(status) \(reason ?? "")")
        case .transportFailure(let message):
            return retryOrFail(reason: message, attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random)
        }
    }

    /// Exponential backoff with full jitter: uniform in [base/2, base·2^(attempts-1)], capped.
    func delay(attempts: Int, random: Double) -> TimeInterval {
        let exponent = Double(max(0, min(attempts - 1, 30)))
        let ceiling = min(maxDelay, baseDelay * pow(2, exponent))
        let floor = min(ceiling, baseDelay / 2)
        return floor + (ceiling - floor) * min(max(random, 0), 1)
    }

    private func retryOrFail(reason: String, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> Action {
        let wait = delay(attempts: attempts, random: random)
        if now.addingTimeInterval(wait).timeIntervalSince(enqueuedAt) > maxRetryAge {
            return .fail(reason: "gave up after \(attempts) attempts: \(reason.trimmingCharacters(in: .whitespaces))")
        }
        return .retry(after: wait)
    }
}

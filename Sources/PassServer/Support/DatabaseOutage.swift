import Foundation
import Logging
import Storage
import SystemSupport

/// A background loop's view of a database outage (the push dispatcher's, the job runner's): the
/// first transient failure (`StorageError.isTransient`) begins it, retries back off by doubling
/// from `initialDelay` to `maximumDelay`, and the first success ends it. Each change is logged
/// once, never each attempt. The loop keeps one value on its own thread and sleeps for the delays.
struct DatabaseOutage {
    let initialDelay: TimeInterval
    let maximumDelay: TimeInterval
    private let backoff: Backoff
    /// When the current outage began; nil while the database answers.
    private(set) var since: Date?
    private var failures = 0

    init(initialDelay: TimeInterval = 0.25, maximumDelay: TimeInterval = 5) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.backoff = Backoff(base: initialDelay, maximum: maximumDelay)
    }

    /// Whether `error` means the database is away for now (worth waiting for), not a bug.
    static func isOutage(_ error: any Error) -> Bool {
        (error as? StorageError)?.isTransient ?? false
    }

    /// Records a failed attempt. Returns whether it began the outage and how long to wait before
    /// the next attempt.
    mutating func failed(at now: Date) -> (began: Bool, retryIn: TimeInterval) {
        let began = since == nil
        if began { since = now }
        failures += 1
        let delay = backoff.ceiling(afterFailures: failures)
        return (began, delay)
    }

    /// Records a call that succeeded. Returns how long the outage lasted if this ended one.
    mutating func recovered(at now: Date) -> TimeInterval? {
        guard let since else { return nil }
        self.since = nil
        failures = 0
        return now.timeIntervalSince(since)
    }

    /// `failed(at:)`, logging the start of an outage (once) as `waiting`. Returns the retry delay.
    mutating func failed(_ error: any Error, at now: Date, logger: Logger, waiting: String) -> TimeInterval {
        let (began, delay) = failed(at: now)
        if began { logger.warning(waiting, ["error": "\(error)"]) }
        return delay
    }

    /// `recovered(at:)`, logging the end of an outage (once) as `resumed`.
    mutating func recovered(at now: Date, logger: Logger, resumed: String) {
        guard let length = recovered(at: now) else { return }
        logger.notice(resumed, ["outage_s": String(format: "%.1f", length)])
    }
}

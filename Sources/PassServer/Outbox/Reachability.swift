import Foundation
import Logging
import Synchronization

/// Whether an outbox's far end (APNs, the SMTP server) can be reached, from the answers to our own
/// messages: unreachable from the first connect or TLS failure until the far end answers anything
/// again. Pure: the channel feeds it and `/readyz` asks it.
struct Reachability: Sendable, Equatable {
    /// When the current outage was first seen; nil while the far end answers.
    private(set) var unreachableSince: Date?

    /// A change worth a log line.
    enum Change: Sendable, Equatable {
        case becameUnreachable
        case recovered(after: TimeInterval)
    }

    /// Takes one message's outcome into account: `reached` true when the far end answered
    /// anything, false when it could not be reached (connect or TLS failure), nil when the outcome
    /// says nothing either way (a lost connection, a timeout, a message only logged).
    mutating func observe(reached: Bool?, at time: Date) -> Change? {
        switch reached {
        case false?:
            guard unreachableSince == nil else { return nil }
            unreachableSince = time
            return .becameUnreachable
        case true?:
            guard let since = unreachableSince else { return nil }
            unreachableSince = nil
            return .recovered(after: time.timeIntervalSince(since))
        case nil:
            return nil
        }
    }

    /// Whether the outage has lasted longer than `grace` at `now` (pending messages are checked
    /// separately: an outage nobody needs to reach the far end through is nothing to report).
    func exceeds(grace: TimeInterval, now: Date) -> Bool {
        outage(beyond: grace, now: now) != nil
    }

    /// How long the outage has lasted at `now`, when longer than `grace`; nil otherwise.
    func outage(beyond grace: TimeInterval, now: Date) -> TimeInterval? {
        guard let since = unreachableSince else { return nil }
        let length = now.timeIntervalSince(since)
        return length > grace ? length : nil
    }
}

/// The far end of an outbox as its log lines name it.
struct FarEnd: Sendable {
    /// `the SMTP server`, `Google's Wallet API`.
    var name: String
    /// What waits while it is unreachable: `emails`, `updates`.
    var messages: String
    /// The metadata key of the answer that showed the outage: `smtp.answer`.
    var answerKey: String
}

extension Mutex where Value == Reachability {
    /// Feeds a batch's outcomes (`reached`, with the recorded reason of each) to the reachability
    /// and logs each change it makes: the far end became unreachable (with the first failing
    /// answer), or is reachable again (after how long).
    func observe(_ outcomes: [(reached: Bool?, reason: String?)], at now: Date, far: FarEnd, logger: Logger) {
        let changes = withLock { reachability in outcomes.compactMap { reachability.observe(reached: $0.reached, at: now) } }
        for change in changes {
            switch change {
            case .becameUnreachable:
                logger.warning("\(far.name) is unreachable; \(far.messages) are retried", [
                    far.answerKey: outcomes.first { $0.reached == false }?.reason ?? "",
                ])
            case .recovered(let duration):
                logger.notice("\(far.name) is reachable again", ["unreachable_s": "\(Int(duration))"])
            }
        }
    }
}

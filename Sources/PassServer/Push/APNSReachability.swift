import Foundation

/// Whether APNs can be reached, from the outcomes of our own pushes: unreachable from the first
/// connect or TLS failure until APNs answers anything again. Pure: the dispatcher feeds it and
/// `/readyz` asks it.
struct APNSReachability: Sendable, Equatable {
    /// When the current outage was first seen; nil while APNs answers.
    private(set) var unreachableSince: Date?

    /// A change worth a log line.
    enum Change: Sendable, Equatable {
        case becameUnreachable
        case recovered(after: TimeInterval)
    }

    /// Takes one push outcome into account. Lost connections and timeouts say nothing either way
    /// (APNs was reached), nor does a push that was only logged.
    mutating func observe(_ outcome: PushPolicy.Outcome, at time: Date) -> Change? {
        switch outcome {
        case .unreachable:
            guard unreachableSince == nil else { return nil }
            unreachableSince = time
            return .becameUnreachable
        case .answered:
            guard let since = unreachableSince else { return nil }
            unreachableSince = nil
            return .recovered(after: time.timeIntervalSince(since))
        case .transportFailure, .logged:
            return nil
        }
    }

    /// Whether the outage has lasted longer than `grace` at `now` (pending pushes are checked
    /// separately: an outage nobody needs to reach APNs through is no reason to be unready).
    func exceeds(grace: TimeInterval, now: Date) -> Bool {
        guard let since = unreachableSince else { return false }
        return now.timeIntervalSince(since) > grace
    }
}

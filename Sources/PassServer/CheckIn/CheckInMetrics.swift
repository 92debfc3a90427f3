import Synchronization

/// Scans answered since the process started, by result (`passserver_checkins_total`).
final class CheckInMetrics: Sendable {
    /// Every result a scan can have, in the order `/metrics` lists them.
    enum Result: String, CaseIterable, Sendable {
        /// Let in: the first scan of an active ticket.
        case checkedIn = "checked_in"
        /// Refused: the ticket was checked in before.
        case alreadyCheckedIn = "already_checked_in"
        /// Refused: the ticket is cancelled.
        case cancelled
        /// Refused: no ticket has this code.
        case unknown
        /// Refused: a valid serial with a wrong signature.
        case forged
        /// Refused: the bare serial of a ticket whose pass carries a signed code.
        case signatureRequired = "signature_required"
        /// Refused: a typed check code more than one ticket of the event has.
        case ambiguousCheckCode = "ambiguous_code"
        /// Refused: the ticket's event is archived.
        case eventArchived = "event_archived"
        /// Refused: the ticket's event ended more than the grace ago.
        case eventEnded = "event_ended"
        /// Refused: a ticket of another event than the one the door-staff phone is signed in for.
        case otherEvent = "other_event"
    }

    private let counts = Mutex<[Result: Int]>([:])

    func record(_ result: Result) {
        counts.withLock { $0[result, default: 0] += 1 }
    }

    /// Every result with its count (zeros included).
    var snapshot: [(result: Result, count: Int)] {
        let current = counts.withLock { $0 }
        return Result.allCases.map { ($0, current[$0] ?? 0) }
    }
}

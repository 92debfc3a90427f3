import Foundation
import PassBundle
import Storage

/// Until when an event's door admits its tickets: while the event is not archived and has not ended
/// more than `grace` ago. A ticket of an event that is over is someone at the wrong door or on the
/// wrong day (last week's ticket, a screenshot kept), refused with its own answer.
///
/// An event without an end (or with one not after its start) is taken to last
/// `WalletEventDetails.assumedDuration` (4 hours), the length its pass's lock-screen times assume.
/// Scans are judged at the time they count as made (`ScanTime`), so an offline scanner's batch
/// from the evening still checks in when it reaches the server the next morning.
struct DoorHours: Sendable, Equatable {
    /// How long after its end an event's tickets still check in (`CHECKIN_GRACE`).
    var grace: TimeInterval = DoorHours.defaultGrace

    /// 12 hours: the night's late arrivals and a scanner's batch sent the next morning are in.
    static let defaultGrace: TimeInterval = 12 * 3_600

    /// Why the door no longer admits an event's tickets.
    enum Closed: Sendable, Equatable {
        /// The event was archived.
        case archived(at: Date)
        /// The event ended at `endedAt`, more than the grace before the scan.
        case ended(at: Date)
    }

    /// When an event starting `startsAt` and ending `endsAt` ends for the door (before the grace).
    static func end(startsAt: Date, endsAt: Date?) -> Date {
        if let endsAt, endsAt > startsAt { return endsAt }
        return startsAt.addingTimeInterval(WalletEventDetails.assumedDuration)
    }

    /// Why a ticket of an event with these times scanned at `time` is refused, or nil when the door
    /// is open for it.
    func closed(startsAt: Date, endsAt: Date?, archivedAt: Date?, at time: Date) -> Closed? {
        if let archivedAt { return .archived(at: archivedAt) }
        let end = Self.end(startsAt: startsAt, endsAt: endsAt)
        return time > end.addingTimeInterval(grace) ? .ended(at: end) : nil
    }

    /// `closed` for a ticket's event; a ticket without an event has no day to be wrong about.
    func closed(_ event: Event?, at time: Date) -> Closed? {
        event.flatMap { closed(startsAt: $0.startsAt, endsAt: $0.endsAt, archivedAt: $0.archivedAt, at: time) }
    }
}

import Foundation
import Storage

/// One scan as the scanner sent it: the code it read, its gate, and when it says it scanned.
struct DoorScan: Sendable, Equatable {
    /// What the scanner read, as read (a code that is no ticket's is `.unknown`, never refused).
    var code: String
    var gate: String?
    /// The event the door is for, as the scanner chose it: a typed check code is looked up among
    /// its tickets (a barcode's code is every event's; the answer names its event).
    var eventID: String?
    /// When the scanner says the scan was made; nil: now. A time out of bounds counts as now
    /// (`ScanTime`).
    var scannedAt: Date?

    init(code: String, gate: String? = nil, scannedAt: Date? = nil, eventID: String? = nil) {
        self.code = code
        self.gate = gate
        self.scannedAt = scannedAt
        self.eventID = eventID
    }
}

/// What the door answers to one scan.
enum ScanOutcome: Sendable, Equatable {
    /// Let in: this scan checked the ticket in. `adjusted` is the `scannedAt` sent when the
    /// check-in did not take it (it counts as made when the server got it).
    case admitted(ScannedTicket, adjusted: ScanTime.Adjustment?)
    /// Refused: the ticket was checked in before; the ticket carries that first check-in.
    case alreadyCheckedIn(ScannedTicket)
    /// Refused: the ticket is cancelled (`pass.cancellationReason` says why).
    case cancelled(ScannedTicket)
    /// Refused: no ticket has this code (or the code is no code this server issued).
    case unknown
    /// Refused: a valid serial with a wrong signature. A transport answers it as `.unknown`, so a
    /// forger learns nothing; the scan is logged for the organizer.
    case forged
    /// Refused: the bare serial of a ticket whose pass carries a signed code. Says nothing about
    /// the ticket (its serial is no secret; its holder is).
    case signatureRequired
    /// Refused: a typed check code that more than one ticket of the chosen event has (the code
    /// is 40 bits of each ticket's HMAC: `CheckInCode.checkCodeSpace`). Says nothing about them;
    /// the door scans the QR code instead.
    case ambiguousCheckCode
    /// Refused: the ticket's event is archived (`DoorHours`).
    case eventArchived(ScannedTicket)
    /// Refused: the ticket's event ended at `endedAt`, more than the grace before the scan.
    case eventEnded(ScannedTicket, endedAt: Date)
    /// Refused: a ticket of another event than the one this door checks in (`CheckInDesk.onlyEvent`).
    /// Says nothing about the ticket.
    case otherEvent

    /// The ticket scanned, when the code was a ticket's that the door may talk about.
    var ticket: ScannedTicket? {
        switch self {
        case .admitted(let ticket, _), .alreadyCheckedIn(let ticket), .cancelled(let ticket), .eventArchived(let ticket), .eventEnded(let ticket, _):
            ticket
        case .unknown, .forged, .signatureRequired, .ambiguousCheckCode, .otherEvent: nil
        }
    }

    /// How `/metrics` counts it.
    var metric: CheckInMetrics.Result {
        switch self {
        case .admitted: .checkedIn
        case .alreadyCheckedIn: .alreadyCheckedIn
        case .cancelled: .cancelled
        case .unknown: .unknown
        case .forged: .forged
        case .signatureRequired: .signatureRequired
        case .ambiguousCheckCode: .ambiguousCheckCode
        case .eventArchived: .eventArchived
        case .eventEnded: .eventEnded
        case .otherEvent: .otherEvent
        }
    }
}

/// The ticket of a scan the door answers about.
struct ScannedTicket: Sendable, Equatable {
    /// The pass after the scan.
    var pass: StoredPass
    /// This scan's check-in (admitted) or the first one (already checked in); nil when cancelled.
    var record: CheckIn?
    /// True for an old serial-only code (no signature to check).
    var unsigned: Bool
    /// The check code printed under the ticket's barcode, to compare with the phone's screen.
    var checkCode: String
}

/// The running count of an event's door.
struct CheckInCount: Sendable, Equatable {
    var eventID: String
    /// Active tickets checked in.
    var checkedIn: Int
    /// Active (not cancelled) tickets.
    var total: Int
}

/// When a scan counts as made.
enum ScanTime {
    /// How far a scanner's clock may run ahead of the server's before its `scannedAt` counts as now.
    static let clockSkew: TimeInterval = 300
    /// How long before it reaches the server a scan may have been made (a scanner offline for
    /// longer, or a `scannedAt` in 1970): an older `scannedAt` counts as now.
    static let maxAge: TimeInterval = 48 * 3_600

    /// A `scannedAt` the check-in did not take: as sent, and why.
    struct Adjustment: Sendable, Equatable {
        enum Reason: String, Sendable {
            /// More than `clockSkew` ahead of the server's clock.
            case ahead
            /// Older than `maxAge` when it reached the server.
            case tooOld = "too_old"
            /// Before the ticket was issued.
            case beforeIssue = "before_issue"
        }

        var sent: Date
        var reason: Reason
    }

    /// The time a scan sent at `sent` counts as made at, received `now`, and the adjustment when
    /// that is not `sent` (the scan happened; the scanner's clock is wrong, or it was kept too long
    /// to be believed). Nil `sent`: nil (the store takes now).
    static func effective(_ sent: Date?, now: Date) -> (at: Date?, adjusted: Adjustment?) {
        guard let sent else { return (nil, nil) }
        if sent > now.addingTimeInterval(clockSkew) { return (now, Adjustment(sent: sent, reason: .ahead)) }
        if sent < now.addingTimeInterval(-maxAge) { return (now, Adjustment(sent: sent, reason: .tooOld)) }
        return (sent, nil)
    }
}

public import Foundation
public import PassIdentifiers

/// A ticket let in at the door: the row of `checkins`.
public struct CheckIn: Sendable, Equatable {
    public var passID: Int64
    public var eventID: String?
    /// When it was scanned (the scanner's time for a scan sent later), whole milliseconds.
    public var checkedInAt: Date
    public var gate: String?
    /// The name of the admin token that checked it in.
    public var scanner: String?
    /// When the server recorded it.
    public var recordedAt: Date

    init(row: SQLRow) throws {
        passID = try row.int64("pass_id")
        eventID = try row.optionalString("event_id")
        checkedInAt = try row.date("checked_in_at")
        gate = try row.optionalString("gate")
        scanner = try row.optionalString("scanner")
        recordedAt = try row.date("recorded_at")
    }

    static let columns = SQLQuery(unsafeRaw: "pass_id, event_id, checked_in_at, gate, scanner, recorded_at")
}

/// One scan to apply (`StoreSession.checkIns.checkIn`).
public struct Scan: Sendable, Equatable {
    public var passTypeIdentifier: PassTypeIdentifier
    public var serialNumber: SerialNumber
    /// When it was scanned.
    public var scannedAt: Date
    public var gate: String?
    /// The name of the admin token that sent it.
    public var scanner: String?

    public init(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, scannedAt: Date, gate: String? = nil, scanner: String? = nil) {
        self.passTypeIdentifier = passTypeIdentifier
        self.serialNumber = serialNumber
        self.scannedAt = scannedAt
        self.gate = gate
        self.scanner = scanner
    }
}

/// What `checkIn` made of a scan.
public enum CheckInOutcome: Sendable, Equatable {
    /// The ticket is checked in by this scan: the pass changed (new revision, pushes enqueued).
    case checkedIn(StoredPass, CheckIn, pushTokensEnqueued: Int)
    /// The ticket was checked in before (whatever this scan's time); nothing changed.
    case alreadyCheckedIn(StoredPass, CheckIn)
    /// The ticket is cancelled; nothing changed.
    case cancelled(StoredPass)
    /// No such pass.
    case notFound
}

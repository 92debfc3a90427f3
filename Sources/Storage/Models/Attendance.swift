public import Foundation

/// Which of an event's counts over time a histogram counts (`StoreSession.attendance.histogram`).
public enum AttendanceSeries: String, Sendable, CaseIterable {
    /// Tickets by issue time (`passes.created_at`), cancelled ones included: they were issued.
    case issued
    /// Passes by their first registration (when a phone first added the pass to Wallet), kept
    /// when that phone removes it again (`passes.wallet_added_at`).
    case walletAdds
    /// Check-ins by when they were scanned, a ticket cancelled after it came in included.
    case checkIns
}

/// The first and last time of a series; nil when it has nothing.
public struct AttendanceSpan: Sendable, Equatable {
    public var first: Date
    public var last: Date

    public init(first: Date, last: Date) {
        self.first = first
        self.last = last
    }
}

/// Equal time buckets from `originMillis` (milliseconds since 1970), each `widthMillis` long:
/// bucket `n` holds the times in `origin + n × width ..< origin + (n + 1) × width`.
public struct AttendanceBuckets: Sendable, Equatable {
    public var originMillis: Int64
    public var widthMillis: Int64

    public init(originMillis: Int64, widthMillis: Int64) {
        self.originMillis = originMillis
        self.widthMillis = widthMillis
    }

    /// When bucket `index` starts.
    public func start(of index: Int) -> Date {
        Date(storageMillis: originMillis + Int64(index) * widthMillis)
    }
}

/// Active tickets of one ticket type: how many, and how many of them are checked in.
public struct TicketTypeCount: Sendable, Equatable {
    /// The ticket's `ticketType` extra field; nil for tickets without one.
    public var ticketType: String?
    public var active: Int
    public var checkedIn: Int

    public init(ticketType: String?, active: Int, checkedIn: Int) {
        self.ticketType = ticketType
        self.active = active
        self.checkedIn = checkedIn
    }
}

/// Check-ins at one gate.
public struct GateCount: Sendable, Equatable {
    /// The gate the scanner named; nil for scans without one.
    public var gate: String?
    public var checkIns: Int

    public init(gate: String?, checkIns: Int) {
        self.gate = gate
        self.checkIns = checkIns
    }
}

/// A check-in undone, with who undid it and when (`checkin_undos`).
public struct UndoneCheckIn: Sendable, Equatable {
    public var checkedInAt: Date
    public var gate: String?
    public var scanner: String?
    public var undoneAt: Date
    /// The name of the admin token that undid it.
    public var undoneBy: String

    public init(checkedInAt: Date, gate: String?, scanner: String?, undoneAt: Date, undoneBy: String) {
        self.checkedInAt = checkedInAt
        self.gate = gate
        self.scanner = scanner
        self.undoneAt = undoneAt
        self.undoneBy = undoneBy
    }

    init(row: SQLRow) throws {
        checkedInAt = try row.date("checked_in_at")
        gate = try row.optionalString("gate")
        scanner = try row.optionalString("scanner")
        undoneAt = try row.date("undone_at")
        undoneBy = try row.string("undone_by")
    }
}

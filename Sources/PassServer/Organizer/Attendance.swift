import Foundation
import Storage

/// Who came to an event, as its attendance page shows it: tickets issued, passes added to Wallet
/// and check-ins over time, and the active tickets by ticket type (checked in or not) and the
/// check-ins by gate. A few dozen numbers read by aggregate queries (`load`), never the tickets.
struct Attendance: Sendable, Equatable {
    /// Counts in equal time buckets: `counts[n]` is bucket `n` of `buckets`.
    struct Series: Sendable, Equatable {
        var buckets: AttendanceBuckets
        var counts: [Int]

        var total: Int { counts.reduce(0, +) }
    }

    /// Tickets by issue time (cancelled ones included); nil for an event without tickets.
    var issued: Series?
    /// Passes by when a phone first added them; nil when no phone holds one.
    var walletAdds: Series?
    /// Check-ins by scan time, per quarter hour (wider only for a span over a day); nil before the first.
    var checkIns: Series?
    /// Active tickets by ticket type, with how many of each are checked in.
    var ticketTypes: [TicketTypeCount] = []
    /// Check-ins by gate, most first.
    var gates: [GateCount] = []

    var activeTickets: Int { ticketTypes.reduce(0) { $0 + $1.active } }
    var checkedIn: Int { ticketTypes.reduce(0) { $0 + $1.checkedIn } }
    /// Active tickets not checked in: once the doors have closed, those who did not come.
    var noShows: Int { activeTickets - checkedIn }

    /// The event's attendance from `session`'s aggregate queries; `offset` is the event's time
    /// zone offset (milliseconds), so that buckets of an hour or more start on the local hour.
    static func load(_ session: StoreSession, eventID: String, offsetMillis: Int64) throws -> Attendance {
        func series(_ kind: AttendanceSeries, _ axis: AttendanceAxis) throws -> Series? {
            guard let span = try session.attendance.span(kind, eventID: eventID) else { return nil }
            let (buckets, count) = axis.buckets(for: span, offsetMillis: offsetMillis)
            var counts = [Int](repeating: 0, count: count)
            for (bucket, value) in try session.attendance.histogram(kind, eventID: eventID, buckets: buckets, count: count) where counts.indices.contains(bucket) {
                counts[bucket] = value
            }
            return Series(buckets: buckets, counts: counts)
        }
        return Attendance(
            issued: try series(.issued, .overview), walletAdds: try series(.walletAdds, .overview), checkIns: try series(.checkIns, .door),
            ticketTypes: try session.attendance.ticketTypeCounts(eventID: eventID), gates: try session.attendance.gateCounts(eventID: eventID)
        )
    }
}

/// How a series' time axis is cut into buckets: the narrowest of `widths` that needs at most
/// `maxBuckets` buckets for the span (past the widest, whole multiples of it).
struct AttendanceAxis: Sendable, Equatable {
    static let minute: Int64 = 60_000
    static let quarterHour = 15 * minute

    var widths: [Int64]
    var maxBuckets: Int

    /// Issue and Wallet times, which spread over weeks: at most 36 bars, from a quarter hour to a week.
    static let overview = AttendanceAxis(
        widths: [15, 30, 60, 120, 180, 360, 720, 1_440, 2_880, 10_080].map { $0 * minute }, maxBuckets: 36
    )
    /// The door: a quarter hour, up to a day of them; a wider span (a stray early scan) widens the buckets.
    static let door = AttendanceAxis(widths: [15, 30, 60, 120, 180, 360, 720, 1_440].map { $0 * minute }, maxBuckets: 96)

    /// The buckets covering `span`, the first starting at or before its first time (on a whole
    /// bucket in local time, by `offsetMillis`), and how many there are.
    func buckets(for span: AttendanceSpan, offsetMillis: Int64) -> (AttendanceBuckets, count: Int) {
        let first = Self.millis(span.first)
        let last = max(Self.millis(span.last), first)
        func origin(_ width: Int64) -> Int64 {
            let local = first + offsetMillis
            return (local - ((local % width) + width) % width) - offsetMillis
        }
        func count(_ width: Int64) -> Int { Int((last - origin(width)) / width) + 1 }
        let widest = widths.last ?? Self.quarterHour
        var width = widths.first { count($0) <= maxBuckets } ?? widest
        while count(width) > maxBuckets { width += widest }
        return (AttendanceBuckets(originMillis: origin(width), widthMillis: width), count(width))
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000).rounded(.down)) }
}

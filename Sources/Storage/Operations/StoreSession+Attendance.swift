import Foundation

/// The attendance page's counts: each one aggregate over an index holding every column it reads
/// (migration 19), so an event of 100,000 tickets is counted without one of its rows being read
/// or sent. Nothing here is per ticket: the answers are a few dozen numbers.
extension AttendanceOperations {
    /// The first and last time of `series` for the event (two reads at the ends of its index).
    public func span(_ series: AttendanceSeries, eventID: String) throws -> AttendanceSpan? {
        let (table, column) = Self.source(series)
        // Two subqueries: each reads one end of the index (SQLite turns a lone min or max into that).
        let row = try first("""
            SELECT (SELECT min(\(column)) FROM \(table) WHERE event_id = \(eventID)) AS first,
                   (SELECT max(\(column)) FROM \(table) WHERE event_id = \(eventID)) AS last
            """)
        guard let row, let first = try row.optionalInt64("first"), let last = try row.optionalInt64("last") else { return nil }
        return AttendanceSpan(first: Date(storageMillis: first), last: Date(storageMillis: last))
    }

    /// How many of `series` fall in each of the first `count` of `buckets` (bucket number →
    /// count). One range count per bucket in one statement: each reads its stretch of the index
    /// in order, so the whole series costs one pass over the event's entries and no sort.
    public func histogram(_ series: AttendanceSeries, eventID: String, buckets: AttendanceBuckets, count: Int) throws -> [Int: Int] {
        guard count > 0 else { return [:] }
        let (table, column) = Self.source(series)
        let origin = buckets.originMillis
        let width = max(buckets.widthMillis, 1)
        let start: SQLQuery = "CAST(\(origin) AS BIGINT) + b.i * CAST(\(width) AS BIGINT)"
        var counts: [Int: Int] = [:]
        for row in try execute("""
            WITH RECURSIVE b(i) AS (SELECT CAST(0 AS BIGINT) UNION ALL SELECT i + 1 FROM b WHERE i < \(Int64(count - 1)))
            SELECT b.i AS bucket, (SELECT count(*) FROM \(table) WHERE event_id = \(eventID) AND \(column) >= \(start)
                AND \(column) < \(start) + CAST(\(width) AS BIGINT)) AS n
            FROM b
            """) {
            counts[try row.int("bucket")] = try row.int("n")
        }
        return counts
    }

    /// The event's active tickets by ticket type (`passes.ticket_type`, the `ticketType` extra
    /// field), each with how many are checked in, in ticket type order (no type last).
    public func ticketTypeCounts(eventID: String) throws -> [TicketTypeCount] {
        // The active tickets by type from `passes_event_type`; the checked-in ones by the type kept
        // on each check-in (`checkins_event_time`), less those whose ticket is no longer active
        // (few: cancelled after it came in), found from `passes_event_type` and joined by key.
        let active = try execute("""
            SELECT ticket_type, count(*) AS n FROM passes
            WHERE event_id = \(eventID) AND status = \(PassStatus.active.rawValue) GROUP BY ticket_type
            """).map { (try $0.optionalString("ticket_type"), try $0.int("n")) }
        var checkedIn: [String?: Int] = [:]
        for row in try execute("SELECT ticket_type, count(*) AS n FROM checkins WHERE event_id = \(eventID) GROUP BY ticket_type") {
            checkedIn[try row.optionalString("ticket_type"), default: 0] += try row.int("n")
        }
        for row in try execute("""
            SELECT c.ticket_type AS ticket_type, count(*) AS n FROM passes p JOIN checkins c ON c.pass_id = p.id
            WHERE p.event_id = \(eventID) AND p.status <> \(PassStatus.active.rawValue) GROUP BY c.ticket_type
            """) {
            checkedIn[try row.optionalString("ticket_type"), default: 0] -= try row.int("n")
        }
        return active.map { TicketTypeCount(ticketType: $0.0, active: $0.1, checkedIn: checkedIn[$0.0] ?? 0) }
            // Sorted here: the backends place NULL differently.
            .sorted { ($0.ticketType ?? "\u{10FFFF}") < ($1.ticketType ?? "\u{10FFFF}") }
    }

    /// The event's check-ins by gate, most first (ties by gate name), read from the event's entries
    /// of `checkins_event_time`.
    public func gateCounts(eventID: String) throws -> [GateCount] {
        try execute("SELECT gate, count(*) AS n FROM checkins WHERE event_id = \(eventID) GROUP BY gate")
            .map { row in GateCount(gate: try row.optionalString("gate"), checkIns: try row.int("n")) }
            // Sorted here: the backends place NULL differently.
            .sorted { ($0.checkIns, $1.gate ?? "\u{10FFFF}") > ($1.checkIns, $0.gate ?? "\u{10FFFF}") }
    }

    private static func source(_ series: AttendanceSeries) -> (table: SQLQuery, column: SQLQuery) {
        switch series {
        case .issued: ("passes", "created_at")
        case .walletAdds: ("passes", "wallet_added_at")
        case .checkIns: ("checkins", "checked_in_at")
        }
    }
}

import Foundation

/// The attendance page's counts: each one aggregate over an index holding every column it reads
/// (migration 19), so an event of 100,000 tickets is counted without one of its rows being read
/// or sent. Nothing here is per ticket: the answers are a few dozen numbers.
extension StoreSession {
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

    /// How many of `series` fall in each of `buckets` (bucket number → count; empty buckets are
    /// missing). Times before the origin are not counted.
    public func histogram(_ series: AttendanceSeries, eventID: String, buckets: AttendanceBuckets) throws -> [Int: Int] {
        let origin = buckets.originMillis
        let width = max(buckets.widthMillis, 1)
        let query: SQLQuery
        switch series {
        case .issued, .checkIns:
            let (table, column) = Self.source(series)
            query = """
                SELECT (\(column) - \(origin)) / \(width) AS bucket, count(*) AS n FROM \(table)
                WHERE event_id = \(eventID) AND \(column) >= \(origin) GROUP BY 1
                """
        case .walletAdds:
            // The first registration of each pass: one group per pass, read in (pass, time) order
            // from `registrations_event_first`, then counted by bucket.
            query = """
                SELECT (added - \(origin)) / \(width) AS bucket, count(*) AS n FROM (
                    SELECT min(created_at) AS added FROM registrations WHERE event_id = \(eventID) GROUP BY pass_id) firsts
                WHERE added >= \(origin) GROUP BY 1
                """
        }
        var counts: [Int: Int] = [:]
        for row in try execute(query) { counts[try row.int("bucket")] = try row.int("n") }
        return counts
    }

    /// How many passes of the event a phone holds now (each counted once, however many phones).
    public func passesInWallet(eventID: String) throws -> Int {
        try first("SELECT count(*) AS n FROM (SELECT pass_id FROM registrations WHERE event_id = \(eventID) GROUP BY pass_id) held")?.int("n") ?? 0
    }

    /// The event's active tickets by ticket type (`passes.ticket_type`, the `ticketType` extra
    /// field), each with how many are checked in, in ticket type order (no type last).
    public func ticketTypeCounts(eventID: String) throws -> [TicketTypeCount] {
        try execute("""
            SELECT ticket_type, count(*) AS active, count(checked_in_at) AS checked_in FROM passes
            WHERE event_id = \(eventID) AND status = \(PassStatus.active.rawValue) GROUP BY ticket_type
            """).map { row in
            TicketTypeCount(ticketType: try row.optionalString("ticket_type"), active: try row.int("active"), checkedIn: try row.int("checked_in"))
        }
        // Sorted here: the backends place NULL differently.
        .sorted { ($0.ticketType ?? "\u{10FFFF}") < ($1.ticketType ?? "\u{10FFFF}") }
    }

    /// The event's check-ins by gate, most first (ties by gate name).
    public func gateCounts(eventID: String) throws -> [GateCount] {
        try execute("SELECT gate, count(*) AS n FROM checkins WHERE event_id = \(eventID) GROUP BY gate")
            .map { row in GateCount(gate: try row.optionalString("gate"), checkIns: try row.int("n")) }
            // Sorted here: the backends place NULL differently.
            .sorted { ($0.checkIns, $1.gate ?? "\u{10FFFF}") > ($1.checkIns, $0.gate ?? "\u{10FFFF}") }
    }

    private static func source(_ series: AttendanceSeries) -> (table: SQLQuery, column: SQLQuery) {
        switch series {
        case .issued: ("passes", "created_at")
        case .walletAdds: ("registrations", "created_at")
        case .checkIns: ("checkins", "checked_in_at")
        }
    }
}

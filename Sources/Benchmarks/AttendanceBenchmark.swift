// The attendance page at scale: an event of many tickets, most on phones and most checked in,
// seeded with set-based SQL (the schema of Sources/Storage/Migrations; its triggers fill in what
// the registrations and tallies derive), then the page rendered again and again on one thread
// exactly as the dashboard renders it (`AttendanceMarkup`: the event read, the aggregate queries,
// the SVG and tables), timed after a warm-up.
import Foundation
import PassServer
public import Storage
import SystemSupport

public enum AttendanceBenchmark {
    public struct Result: Sendable {
        public var tickets: Int
        public var checkIns: Int
        public var registrations: Int
        public var seedSeconds: Double
        public var renders: Int
        public var p50: Double
        public var p99: Double
        public var max: Double
        public var bytes: Int

        /// A Markdown row: the goal (100 ms at p99) as the ratio p99 ÷ 100 ms.
        public func markdownRow(backend: StorageBackend) -> String {
            func ms(_ value: Double) -> String { String(format: "%.1f", value) }
            return "| attendance page, \(tickets) tickets, \(checkIns) check-ins | \(backend) | \(renders) | "
                + "\(ms(p50)) ms | \(ms(p99)) ms | \(ms(max)) ms | \(String(format: "%.2f", p99 / 100)) | "
                + (registrations > 0 ? String(format: "%.1f s", seedSeconds) : "seeded before") + ", page \(bytes) bytes |"
        }
    }

    public static let eventID = "bench-attendance"

    /// Seeds `eventID` with `tickets` tickets (issued over 30 days, four ticket types, one in fifty
    /// cancelled), `checkIns` of them checked in over three hours at six gates, and seven in ten on
    /// a phone (one in ten of those on two); then renders the page `warmUp` times untimed and
    /// `renders` times timed.
    /// Which part to run: `seed` only (then `VACUUM ANALYZE` from another process, as
    /// bench/attendance.sh does: this process's connections keep PostgreSQL from marking the seed's
    /// pages all-visible), `measure` an event seeded before, or both.
    public enum Phase: String, Sendable { case seed, measure, all }

    public static func run(
        store: any Store, tickets: Int, checkIns: Int, renders: Int, phase: Phase = .all, warmUp: Int = 20
    ) throws -> Result {
        let start = Date()
        try store.migrate()
        var registrations = 0
        if phase != .measure {
            registrations = try seed(store, tickets: tickets, checkIns: min(checkIns, tickets))
            // Statistics as autovacuum would leave them (on PostgreSQL the visibility map comes with
            // the separate VACUUM of bench/attendance.sh).
            _ = try store.withSession(.write) { session in
                try session.execute(SQLQuery(unsafeRaw: store.backend == .postgres ? "VACUUM ANALYZE" : "ANALYZE"))
            }
        }
        let seedSeconds = Date().timeIntervalSince(start)
        guard phase != .seed else {
            return Result(
                tickets: tickets, checkIns: checkIns, registrations: registrations, seedSeconds: seedSeconds, renders: 0, p50: 0, p99: 0, max: 0, bytes: 0
            )
        }
        var bytes = 0
        for _ in 0..<warmUp { bytes = try AttendanceMarkup.render(eventID: eventID, store: store).utf8.count }
        var times: [Double] = []
        times.reserveCapacity(renders)
        for _ in 0..<renders {
            let begin = ContinuousClock.now
            _ = try AttendanceMarkup.render(eventID: eventID, store: store)
            let elapsed = ContinuousClock.now - begin
            times.append(elapsed.timeInterval * 1_000)
        }
        times.sort()
        func percentile(_ p: Double) -> Double { times.isEmpty ? 0 : times[min(times.count - 1, Int((Double(times.count) * p).rounded(.up)) - 1)] }
        return Result(
            tickets: tickets, checkIns: min(checkIns, tickets), registrations: registrations, seedSeconds: seedSeconds, renders: renders,
            p50: percentile(0.5), p99: percentile(0.99), max: times.last ?? 0, bytes: bytes
        )
    }

    /// The seed, in one transaction; returns how many registrations it made.
    static func seed(_ store: any Store, tickets: Int, checkIns: Int) throws -> Int {
        let postgres = store.backend == .postgres
        // 1…n as rows: generate_series on PostgreSQL, a recursive CTE on SQLite.
        func numbers(_ count: Int) -> String {
            postgres ? "generate_series(CAST(1 AS BIGINT), CAST(\(count) AS BIGINT)) AS s(i)" : "(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(count)) SELECT i FROM s) AS s"
        }
        func hash(_ prefix: String) -> String { postgres ? "sha256(('\(prefix)' || i)::bytea)" : "randomblob(32)" }
        let concat = { (parts: [String]) in parts.joined(separator: " || ") }
        let day: Int64 = 86_400_000
        let doors: Int64 = 1_800_000_000_000
        let issuedFrom = doors - 30 * day
        let registered = tickets * 7 / 10
        let statements: [String] = [
            """
            INSERT INTO events (id, name, venue, starts_at, ends_at, time_zone, template, revision, created_at, updated_at)
            VALUES ('\(eventID)', 'Bench Night', 'Hall A', \(doors), NULL, 'Europe/Paris', 'event-ticket', 1, 0, 0)
            """,
            // Issued over 30 days, four types, one in fifty cancelled; the first `checkIns` checked in.
            """
            INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash, event_id,
                attendee_name, attendee_email, seat, extra, status, revision, modified_at, created_at, checked_in_at)
            SELECT 'pass.bench.attendance', \(concat(["'A'", "i"])), \(hash("a")), \(hash("d")), '\(eventID)',
                \(concat(["'Attendee '", "i"])), \(concat(["'guest'", "i", "'@example.com'"])), NULL,
                CASE i % 4 WHEN 0 THEN '{"ticketType":"VIP"}' WHEN 1 THEN '{"ticketType":"General"}' WHEN 2 THEN '{"ticketType":"Student"}'
                    ELSE '{"ticketType":"Staff"}' END,
                CASE WHEN i % 50 = 0 THEN 'voided' ELSE 'active' END, 1, 1700000000,
                \(issuedFrom) + (i * \(30 * day / Int64(max(tickets, 1)))), CASE WHEN i <= \(checkIns) THEN \(doors) + (i * 7919) % 10800000 END
            FROM \(numbers(tickets))
            """,
            """
            INSERT INTO checkins (pass_id, event_id, checked_in_at, gate, scanner, recorded_at, ticket_type)
            SELECT id, event_id, checked_in_at, CASE id % 6 WHEN 0 THEN 'North' WHEN 1 THEN 'South' WHEN 2 THEN 'East' WHEN 3 THEN 'West'
                WHEN 4 THEN 'VIP' ELSE 'Staff' END, 'door', checked_in_at, ticket_type
            FROM passes WHERE event_id = '\(eventID)' AND checked_in_at IS NOT NULL
            """,
            """
            INSERT INTO devices (device_library_identifier, push_token, updated_at)
            SELECT \(concat(["'bench-device-'", "i"])), \(concat(["'token'", "i"])), 0 FROM \(numbers(registered + registered / 10))
            """,
            // Seven in ten passes on a phone, added over the 30 days; one in ten of those on a second phone a day later.
            """
            INSERT INTO registrations (device_library_identifier, pass_type_identifier, serial_number, created_at, updated_at)
            SELECT \(concat(["'bench-device-'", "i"])), 'pass.bench.attendance', \(concat(["'A'", "i"])),
                \(issuedFrom) + (i * \(30 * day / Int64(max(tickets, 1)))) + 3600000, 0
            FROM \(numbers(registered))
            """,
            """
            INSERT INTO registrations (device_library_identifier, pass_type_identifier, serial_number, created_at, updated_at)
            SELECT \(concat(["'bench-device-'", "(\(registered) + i)"])), 'pass.bench.attendance', \(concat(["'A'", "(i * 10)"])),
                \(issuedFrom) + (i * 10 * \(30 * day / Int64(max(tickets, 1)))) + \(day), 0
            FROM \(numbers(registered / 10))
            """,
        ]
        try store.withSession(.write) { session in
            try session.transaction {
                for statement in statements { try session.execute(SQLQuery(unsafeRaw: statement)) }
            }
        }
        return registered + registered / 10
    }
}

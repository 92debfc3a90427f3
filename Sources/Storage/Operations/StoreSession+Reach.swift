public import Foundation
public import PassIdentifiers

// Reach: which registrations hold their pass's current revision, and the tallies that count them
// (migration 7 explains the columns, the triggers and the folding).
extension ReachOperations {
    /// The changed-serials list returned `tag` to the device, listing its passes whose revision
    /// is in `(listedAfter, tag]`: their registrations remember the tag and when. Registrations
    /// already told this tag or a later one are not written. Returns how many were.
    @discardableResult
    public func recordTold(
        deviceLibraryIdentifier: DeviceLibraryIdentifier, passTypeIdentifier: PassTypeIdentifier, listedAfter since: Int64?, tag: Int64, now: Date
    ) throws -> Int {
        try execute("""
            UPDATE registrations SET told_revision = \(tag), told_at = \(now.storageMillis)
            WHERE device_library_identifier = \(deviceLibraryIdentifier) AND pass_type_identifier = \(passTypeIdentifier)
              AND pass_revision > \(since ?? -1) AND pass_revision <= \(tag)
              AND (told_revision IS NULL OR told_revision < \(tag))
            RETURNING serial_number
            """).count
    }

    /// Revision `revision` of the pass was served to a device (200, or a 304 confirming it). The
    /// pass and its registrations remember it unless they know of that revision or a later one
    /// already, in which case nothing is written. Returns whether anything was.
    @discardableResult
    public func recordServed(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, revision: Int64, now: Date) throws -> Bool {
        let pass: SQLQuery = "pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)"
        if dialect == .postgres {
            // One statement, one round trip (every phone's fetch makes it once per revision): the
            // registrations are written only when the pass row was, as in the transaction below.
            // The EXISTS runs the passes update first, so rows are locked in the same order.
            return try first("""
                WITH served AS (
                    UPDATE passes SET served_revision = \(revision), served_at = \(now.storageMillis)
                    WHERE \(pass) AND (served_revision IS NULL OR served_revision < \(revision))
                    RETURNING id),
                registered AS (
                    UPDATE registrations SET served_revision = \(revision)
                    WHERE \(pass) AND (served_revision IS NULL OR served_revision < \(revision)) AND EXISTS (SELECT 1 FROM served)
                    RETURNING 1)
                SELECT (SELECT count(*) FROM served) AS served
                """).map { try $0.int("served") > 0 } ?? false
        }
        return try transaction {
            let changed = try execute("""
                UPDATE passes SET served_revision = \(revision), served_at = \(now.storageMillis)
                WHERE \(pass) AND (served_revision IS NULL OR served_revision < \(revision))
                RETURNING id
                """)
            guard !changed.isEmpty else { return false }
            try execute("""
                UPDATE registrations SET served_revision = \(revision)
                WHERE \(pass) AND (served_revision IS NULL OR served_revision < \(revision))
                """)
            return true
        }
    }

    /// Writes many phones' reach marks in one transaction: what `recordTold` and `recordServed`
    /// write for each, with the same conditions (nothing moves back, a mark already known writes
    /// nothing). On PostgreSQL that is two statements in one round trip whatever the count, and the
    /// tally triggers run once per statement instead of once per phone; rows are locked in key
    /// order (passes by id, registrations by primary key), so two writers of overlapping batches
    /// wait for each other instead of deadlocking. The served marks go first: the transaction locks
    /// passes before registrations, as a pass change (an edit, a check-in) does, so the two wait for
    /// each other instead of deadlocking either. SQLite runs the single-mark statements.
    public func recordReach(_ marks: ReachMarks) throws {
        guard !marks.isEmpty else { return }
        // The newest revision served of each pass is all the pass and its registrations keep.
        var newest: [ReachMarks.Served] = []
        var position: [PassKey: Int] = [:]
        for mark in marks.served {
            let key = PassKey(passType: mark.passTypeIdentifier, serial: mark.serialNumber)
            if let index = position[key] {
                if newest[index].revision < mark.revision { newest[index] = mark }
            } else {
                position[key] = newest.count
                newest.append(mark)
            }
        }
        guard dialect == .postgres else {
            try transaction {
                for mark in marks.told {
                    try recordTold(
                        deviceLibraryIdentifier: mark.deviceLibraryIdentifier, passTypeIdentifier: mark.passTypeIdentifier,
                        listedAfter: mark.listedAfter, tag: mark.tag, now: mark.at
                    )
                }
                for mark in newest {
                    try recordServed(passTypeIdentifier: mark.passTypeIdentifier, serialNumber: mark.serialNumber, revision: mark.revision, now: mark.at)
                }
            }
            return
        }
        try transaction {
            if !newest.isEmpty {
                var records = JSONRecords()
                for mark in newest {
                    records.append([
                        "pass_type": .text(mark.passTypeIdentifier.rawValue), "serial": .text(mark.serialNumber.rawValue),
                        "revision": .integer(mark.revision), "served_at": .integer(mark.at.storageMillis),
                    ])
                }
                let served = recordSet(records, alias: "m", columns: [
                    ("pass_type", "text"), ("serial", "text"), ("revision", "bigint"), ("served_at", "bigint"),
                ])
                // As in `recordServed`: the registrations are written only where the pass row was.
                try executeDeferred("""
                    WITH locked AS (
                        SELECT p.id, m.revision, m.served_at FROM passes p JOIN \(served)
                            ON p.pass_type_identifier = m.pass_type AND p.serial_number = m.serial
                        WHERE p.served_revision IS NULL OR p.served_revision < m.revision
                        ORDER BY p.id
                        FOR UPDATE OF p),
                    served AS (
                        UPDATE passes p SET served_revision = l.revision, served_at = l.served_at FROM locked l
                        WHERE p.id = l.id AND (p.served_revision IS NULL OR p.served_revision < l.revision)
                        RETURNING p.pass_type_identifier, p.serial_number, l.revision),
                    registered AS (
                        SELECT r.device_library_identifier, r.pass_type_identifier, r.serial_number, s.revision
                        FROM registrations r JOIN served s USING (pass_type_identifier, serial_number)
                        WHERE r.served_revision IS NULL OR r.served_revision < s.revision
                        ORDER BY r.device_library_identifier, r.pass_type_identifier, r.serial_number
                        FOR UPDATE OF r)
                    UPDATE registrations r SET served_revision = g.revision FROM registered g
                    WHERE r.device_library_identifier = g.device_library_identifier AND r.pass_type_identifier = g.pass_type_identifier
                      AND r.serial_number = g.serial_number AND (r.served_revision IS NULL OR r.served_revision < g.revision)
                    """)
            }
            if !marks.told.isEmpty {
                var records = JSONRecords()
                for mark in marks.told {
                    records.append([
                        "device": .text(mark.deviceLibraryIdentifier.rawValue), "pass_type": .text(mark.passTypeIdentifier.rawValue),
                        "since": .integer(mark.listedAfter ?? -1), "tag": .integer(mark.tag), "told_at": .integer(mark.at.storageMillis),
                    ])
                }
                let told = recordSet(records, alias: "m", columns: [
                    ("device", "text"), ("pass_type", "text"), ("since", "bigint"), ("tag", "bigint"), ("told_at", "bigint"),
                ])
                // A registration listed by two marks of the batch takes the later tag.
                try executeDeferred("""
                    WITH best AS (
                        SELECT DISTINCT ON (r.device_library_identifier, r.pass_type_identifier, r.serial_number)
                            r.device_library_identifier, r.pass_type_identifier, r.serial_number, m.tag, m.told_at
                        FROM registrations r JOIN \(told)
                            ON r.device_library_identifier = m.device AND r.pass_type_identifier = m.pass_type
                        WHERE r.pass_revision > m.since AND r.pass_revision <= m.tag AND (r.told_revision IS NULL OR r.told_revision < m.tag)
                        ORDER BY r.device_library_identifier, r.pass_type_identifier, r.serial_number, m.tag DESC),
                    locked AS (
                        SELECT b.* FROM registrations r JOIN best b USING (device_library_identifier, pass_type_identifier, serial_number)
                        ORDER BY r.device_library_identifier, r.pass_type_identifier, r.serial_number
                        FOR UPDATE OF r)
                    UPDATE registrations r SET told_revision = l.tag, told_at = l.told_at FROM locked l
                    WHERE r.device_library_identifier = l.device_library_identifier AND r.pass_type_identifier = l.pass_type_identifier
                      AND r.serial_number = l.serial_number AND (r.told_revision IS NULL OR r.told_revision < l.tag)
                    """)
            }
        }
    }

    private struct PassKey: Hashable {
        var passType: PassTypeIdentifier
        var serial: SerialNumber
    }

    /// The registrations of a pass, oldest first, with what the pass's reach knows of each.
    public func registeredDevices(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber) throws -> [RegisteredDevice] {
        try execute("""
            SELECT device_library_identifier, created_at, told_revision, told_at,
                CASE WHEN told_revision >= pass_revision AND served_revision >= pass_revision THEN 1 ELSE 0 END AS up_to_date
            FROM registrations
            WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
            ORDER BY created_at, device_library_identifier
            """).map { row in
            RegisteredDevice(
                deviceLibraryIdentifier: DeviceLibraryIdentifier(trusted: try row.string("device_library_identifier")), registeredAt: try row.date("created_at"),
                toldRevision: try row.optionalInt64("told_revision"), toldAt: try row.optionalDate("told_at"),
                upToDate: try row.int64("up_to_date") == 1
            )
        }
    }

    /// For the passes of an event with ids in `passIDs`: how many registrations each has and how
    /// many of them are up to date. Passes without registrations are absent. One indexed query.
    public func deviceCounts(eventID: String, passIDs: ClosedRange<Int64>) throws -> [Int64: (devices: Int, upToDate: Int)] {
        var counts: [Int64: (devices: Int, upToDate: Int)] = [:]
        for row in try execute("""
            SELECT pass_id, count(*) AS devices,
                sum(CASE WHEN told_revision >= pass_revision AND served_revision >= pass_revision THEN 1 ELSE 0 END) AS up_to_date
            FROM registrations
            WHERE event_id = \(eventID) AND pass_id >= \(passIDs.lowerBound) AND pass_id <= \(passIDs.upperBound)
            GROUP BY pass_id
            """) {
            counts[try row.int64("pass_id")] = (try row.int("devices"), try row.int("up_to_date"))
        }
        return counts
    }

    /// The tallies of an event: its total and each job's share, from the folded tallies plus the
    /// changes not folded yet, read in one statement (one snapshot).
    public func eventTally(eventID: String) throws -> EventTally {
        var tally = EventTally()
        for (_, job, counts) in try tallyRows(eventIDs: [eventID], byJob: true) {
            tally.total = tally.total + counts
            tally.byJob[job, default: Tally()] = tally.byJob[job, default: Tally()] + counts
        }
        return tally
    }

    /// The totals of several events (an event without any count is absent). One statement.
    public func eventTotals(eventIDs: [String]) throws -> [String: Tally] {
        var totals: [String: Tally] = [:]
        for (event, _, counts) in try tallyRows(eventIDs: eventIDs, byJob: false) {
            totals[event, default: Tally()] = totals[event, default: Tally()] + counts
        }
        return totals
    }

    private func tallyRows(eventIDs: [String], byJob: Bool) throws -> [(String, String, Tally)] {
        guard !eventIDs.isEmpty else { return [] }
        let events = SQLQuery.joined(eventIDs.map { "\($0)" }, separator: ", ")
        let job: SQLQuery = byJob ? "job_id" : "CAST('' AS TEXT) AS job_id"
        let groups: SQLQuery = byJob ? "event_id, job_id" : "event_id"
        return try execute("""
            SELECT event_id, \(job), \(Self.tallySums) FROM (
                SELECT \(Self.tallyColumns) FROM event_tallies WHERE event_id IN (\(events))
                UNION ALL
                SELECT \(Self.tallyColumns) FROM event_tally_changes WHERE event_id IN (\(events))) t
            GROUP BY \(groups)
            """).map { row in (try row.string("event_id"), try row.string("job_id"), try Self.tally(row)) }
    }

    /// Appends changes to the tallies (what became of pushes); folded later like the triggers' own.
    public func appendTallyChanges(_ changes: [TallyChange]) throws {
        let rows = changes.filter { !$0.change.isZero }
        guard !rows.isEmpty else { return }
        let values = SQLQuery.joined(rows.map { row in
            let change = row.change
            return """
                (\(row.eventID), \(row.jobID ?? ""), \(change.tickets), \(change.cancelled), \(change.registeredDevices), \(change.devices),
                \(change.devicesUpToDate), \(change.pushesPending), \(change.pushesDelivered), \(change.pushesFailed),
                \(change.checkedIn), \(change.emailsQueued), \(change.emailsSent), \(change.emailsFailed))
                """
        }, separator: ", ")
        try executeDeferred("INSERT INTO event_tally_changes (\(Self.tallyColumns)) VALUES \(values)")
    }

    /// Folds up to `limit` tally changes, oldest first, into `event_tallies`; returns how many.
    /// Several processes may fold at once: each takes rows the others have not locked.
    @discardableResult
    public func foldTallyChanges(limit: Int = 10_000) throws -> Int {
        let sums = SQLQuery(unsafeRaw: Self.counterColumns.map { "CAST(sum(\($0)) AS BIGINT)" }.joined(separator: ", "))
        let add = SQLQuery(unsafeRaw: Self.counterColumns.map { "\($0) = event_tallies.\($0) + excluded.\($0)" }.joined(separator: ", "))
        if dialect == .postgres {
            // One statement: the rows deleted are exactly the rows summed (one snapshot).
            return try first("""
                WITH moved AS (
                    DELETE FROM event_tally_changes WHERE id IN (
                        SELECT id FROM event_tally_changes ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                    RETURNING \(Self.tallyColumns)),
                folded AS (
                    INSERT INTO event_tallies (\(Self.tallyColumns))
                    SELECT event_id, job_id, \(sums) FROM moved GROUP BY event_id, job_id ORDER BY event_id, job_id
                    ON CONFLICT (event_id, job_id) DO UPDATE SET \(add)
                    RETURNING 1)
                SELECT (SELECT count(*) FROM moved) AS moved
                """)?.int("moved") ?? 0
        }
        // SQLite: one writer, so the rows summed and the rows deleted are the same in a transaction.
        return try transaction {
            guard let last = try first("""
                SELECT max(id) AS last, count(*) AS moved FROM (SELECT id FROM event_tally_changes ORDER BY id LIMIT \(limit)) t
                """), let upTo = try last.optionalInt64("last")
            else { return 0 }
            try execute("""
                INSERT INTO event_tallies (\(Self.tallyColumns))
                SELECT event_id, job_id, \(sums) FROM event_tally_changes WHERE id <= \(upTo) GROUP BY event_id, job_id
                ON CONFLICT (event_id, job_id) DO UPDATE SET \(add)
                """)
            try execute("DELETE FROM event_tally_changes WHERE id <= \(upTo)")
            return try last.int("moved")
        }
    }

    private static let counterColumns = [
        "tickets", "voided", "registered_devices", "devices", "devices_current", "pushes_pending", "pushes_delivered", "pushes_failed",
        "checked_in", "emails_queued", "emails_sent", "emails_failed",
    ]
    private static let tallyColumns = SQLQuery(unsafeRaw: (["event_id", "job_id"] + counterColumns).joined(separator: ", "))
    private static let tallySums = SQLQuery(unsafeRaw: counterColumns.map { "CAST(sum(\($0)) AS BIGINT) AS \($0)" }.joined(separator: ", "))

    private static func tally(_ row: SQLRow) throws -> Tally {
        Tally(
            tickets: try row.int64("tickets"), cancelled: try row.int64("voided"), registeredDevices: try row.int64("registered_devices"),
            devices: try row.int64("devices"),
            devicesUpToDate: try row.int64("devices_current"), pushesPending: try row.int64("pushes_pending"),
            pushesFailed: try row.int64("pushes_failed"), pushesDelivered: try row.int64("pushes_delivered"),
            checkedIn: try row.int64("checked_in"), emailsQueued: try row.int64("emails_queued"),
            emailsSent: try row.int64("emails_sent"), emailsFailed: try row.int64("emails_failed")
        )
    }
}

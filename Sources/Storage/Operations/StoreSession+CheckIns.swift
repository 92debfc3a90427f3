public import Foundation
public import PassIdentifiers

extension CheckInOperations {
    /// Checks a ticket in, in one transaction: the pass row is locked (`updatePass`), so of two
    /// scanners checking in the same ticket at once exactly one succeeds and the other finds it
    /// checked in; the `checkins` row (primary key `pass_id`) is written with the pass's
    /// `checked_in_at`, a new revision and pushes to the pass's phones.
    ///
    /// A cancelled ticket is refused whatever else. A ticket already checked in is refused
    /// whatever this scan's time: the first check-in recorded stays as it is (its time, gate and
    /// scanner), so a scan sent later, however it is dated, never rewrites it. A scan dated before
    /// the pass was issued cannot have happened then: it counts as made `now` (the scan happened;
    /// its clock is wrong).
    public func checkIn(_ scan: Scan, now: Date) throws -> CheckInOutcome {
        try transaction {
            guard let locked = try session.passes.lockedPass(passTypeIdentifier: scan.passTypeIdentifier, serialNumber: scan.serialNumber) else {
                return .notFound
            }
            let current = locked.pass
            if current.status == .cancelled { return .cancelled(current) }
            if let existing = current.checkedInAt {
                return .alreadyCheckedIn(current, try checkIn(passID: current.id) ?? CheckIn(pass: current, at: existing))
            }
            let sent = Date(storageMillis: scan.scannedAt.storageMillis)
            let scannedAt = sent < current.createdAt ? Date(storageMillis: now.storageMillis) : sent
            let record = CheckIn(
                passID: current.id, eventID: current.eventID, checkedInAt: scannedAt, gate: scan.gate, scanner: scan.scanner,
                recordedAt: Date(storageMillis: now.storageMillis)
            )
            // Written with the pass change, in its round trip on PostgreSQL: the row is the pass's
            // (primary key `pass_id`), and the pass is locked and not checked in (a row left
            // without its pass's `checked_in_at`, which no transaction here leaves, is replaced).
            // The pass's ticket type goes with it, for the attendance page's count by type.
            let upsert: SQLQuery = """
                INSERT INTO checkins (pass_id, event_id, checked_in_at, gate, scanner, recorded_at, ticket_type)
                SELECT CAST(\(record.passID) AS BIGINT), CAST(\(record.eventID) AS TEXT), CAST(\(scannedAt.storageMillis) AS BIGINT),
                    CAST(\(record.gate) AS TEXT), CAST(\(record.scanner) AS TEXT), CAST(\(now.storageMillis) AS BIGINT), ticket_type
                FROM passes WHERE id = \(record.passID)
                ON CONFLICT (pass_id) DO UPDATE SET checked_in_at = excluded.checked_in_at, gate = excluded.gate,
                    scanner = excluded.scanner, recorded_at = excluded.recorded_at, ticket_type = excluded.ticket_type
                """
            // The last statement of the transaction: on PostgreSQL the COMMIT goes with it.
            let detail = WebhookDetail(checkedInAt: scannedAt.storageMillis, gate: scan.gate, scanner: scan.scanner)
            switch try session.passes.apply(PassChange(checkedInAt: .some(scannedAt)), to: locked, alongside: upsert, final: true, webhookDetail: detail, now: now) {
            case .updated(let pass, let enqueued):
                return .checkedIn(pass, record, pushTokensEnqueued: enqueued)
            case .unchanged(let pass):
                return .checkedIn(pass, record, pushTokensEnqueued: 0)
            }
        }
    }

    /// Undoes a check-in: deletes the `checkins` row, keeping it in `checkin_undos` with who undid
    /// it (`undoneBy`, an admin token's name) and when, and gives the pass its status back (a new
    /// revision and pushes); it can be checked in again. A ticket not checked in is left as it is
    /// (`.unchanged`, nothing recorded). Throws `.notFound` if the pass does not exist.
    public func undoCheckIn(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, undoneBy: String, now: Date) throws -> PassUpdate {
        try transaction {
            guard let locked = try session.passes.lockedPass(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber) else {
                throw StorageError(.notFound, "no such pass")
            }
            let id = locked.pass.id
            guard locked.pass.checkedInAt != nil else {
                return try session.passes.apply(PassChange(), to: locked, alongside: "DELETE FROM checkins WHERE pass_id = \(id)", final: true, now: now)
            }
            // Kept first (the pass is locked: its `checkins` row cannot change meanwhile), then
            // deleted with the pass change, in its round trip.
            try execute("""
                INSERT INTO checkin_undos (pass_id, checked_in_at, gate, scanner, undone_at, undone_by)
                SELECT pass_id, checked_in_at, gate, scanner, CAST(\(now.storageMillis) AS BIGINT), CAST(\(undoneBy) AS TEXT) FROM checkins WHERE pass_id = \(id)
                """)
            return try session.passes.apply(PassChange(checkedInAt: .some(nil)), to: locked, alongside: "DELETE FROM checkins WHERE pass_id = \(id)", final: true, now: now)
        }
    }

    /// The check-ins of `passIDs` that have one, by pass id (primary key lookups).
    public func checkIns(passIDs: [Int64]) throws -> [Int64: CheckIn] {
        guard !passIDs.isEmpty else { return [:] }
        let ids = SQLQuery.joined(passIDs.map { "\($0)" }, separator: ", ")
        var found: [Int64: CheckIn] = [:]
        for row in try execute("SELECT \(CheckIn.columns) FROM checkins WHERE pass_id IN (\(ids))") {
            let record = try CheckIn(row: row)
            found[record.passID] = record
        }
        return found
    }

    /// The check-ins of a pass that were undone, newest first (at most `limit`).
    public func undoneCheckIns(passID: Int64, limit: Int = 20) throws -> [UndoneCheckIn] {
        try execute("""
            SELECT checked_in_at, gate, scanner, undone_at, undone_by FROM checkin_undos WHERE pass_id = \(passID) ORDER BY id DESC LIMIT \(limit)
            """).map(UndoneCheckIn.init(row:))
    }

    /// When the check-in migration (10) was applied: passes created before it were issued before
    /// their barcodes were signed, and may still be on phones with their bare serial as the code.
    /// Nil when it is not recorded.
    public func signedBarcodesSince() throws -> Date? {
        try first("SELECT applied_at FROM schema_migrations WHERE version = \(Migration.checkIns.version)")
            .map { Date(storageMillis: try $0.int64("applied_at")) }
    }

    /// The serial numbers of `eventID`'s passes of `passTypeIdentifier`, cancelled ones included, in
    /// id order (index `passes_event`): the door derives each one's check code to find a typed one.
    public func serialNumbers(eventID: String, passTypeIdentifier: PassTypeIdentifier) throws -> [SerialNumber] {
        try execute("""
            SELECT serial_number FROM passes WHERE event_id = \(eventID) AND pass_type_identifier = \(passTypeIdentifier.rawValue) ORDER BY id
            """).map { SerialNumber(trusted: try $0.string("serial_number")) }
    }

    /// The check-in of a pass, if it has one.
    public func checkIn(passID: Int64) throws -> CheckIn? {
        try first("SELECT \(CheckIn.columns) FROM checkins WHERE pass_id = \(passID)").map(CheckIn.init(row:))
    }

    /// How many active (not cancelled) tickets of each event are checked in; events without any
    /// are missing from the answer.
    public func checkInCounts(eventIDs: [String]) throws -> [String: Int] {
        // From the events' tallies (migration 13 keeps them by trigger on the pass's `status` and
        // `checked_in_at`, which a check-in and its undo change with the `checkins` row).
        try session.reach.eventTotals(eventIDs: eventIDs).compactMapValues { $0.checkedIn == 0 ? nil : Int($0.checkedIn) }
    }
}

extension CheckIn {
    /// A check-in known only from the pass row (a pass checked in without a `checkins` row,
    /// which the transaction above never leaves behind).
    init(passID: Int64, eventID: String?, checkedInAt: Date, gate: String?, scanner: String?, recordedAt: Date) {
        self.passID = passID
        self.eventID = eventID
        self.checkedInAt = checkedInAt
        self.gate = gate
        self.scanner = scanner
        self.recordedAt = recordedAt
    }

    init(pass: StoredPass, at time: Date) {
        passID = pass.id
        eventID = pass.eventID
        checkedInAt = time
        gate = nil
        scanner = nil
        recordedAt = time
    }
}

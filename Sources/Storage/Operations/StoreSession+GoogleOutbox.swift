public import Foundation

/// The Google Wallet outbox (migration 22). Changes are enqueued by the operations that make them
/// (a ticket issued or changed, an event edited) while the `google_wallet` counter is 1, which the
/// server sets at start from its configuration, so every instance sharing the database enqueues
/// alike; with it 0 nothing is written.
extension GoogleWalletOperations {
    /// Turns enqueueing on or off for every instance of this database.
    public func setGoogleWallet(enabled: Bool) throws {
        try execute("""
            INSERT INTO counters (name, value) VALUES ('google_wallet', \(enabled ? 1 : 0))
            ON CONFLICT (name) DO UPDATE SET value = excluded.value
            """)
    }

    /// Whether changes are enqueued for Google.
    public func googleWalletEnabled() throws -> Bool {
        try first("SELECT value FROM counters WHERE name = 'google_wallet'").map { try $0.int("value") != 0 } ?? false
    }

    /// The condition every enqueueing statement carries.
    var googleEnabledCondition: SQLQuery {
        "EXISTS (SELECT 1 FROM counters WHERE name = 'google_wallet' AND value = 1)"
    }

    /// Enqueues the objects of the tickets matching `filter` (a condition on `p` passes), and the
    /// class of each of their events that Google does not hold yet, in one statement each;
    /// `notify` asks for notifying updates. Deferred (`executeDeferred`): inside a transaction on
    /// PostgreSQL both go with the next statement or the COMMIT, so issuing a ticket costs no round
    /// trip more, with Google Wallet on or off.
    func enqueueGoogleObjects(where filter: SQLQuery, notify: Bool, now: Date) throws {
        let millis = now.storageMillis
        let digits = dialect.pick(postgres: "lpad(p.id::text, 20, '0')", sqlite: "substr('00000000000000000000' || p.id, -20)")
        try executeDeferred("""
            INSERT INTO google_outbox (target, notify, generation, attempts, next_attempt_at, first_enqueued_at, state)
            SELECT DISTINCT 'c:' || p.event_id, 0, 1, 0, \(millis), \(millis), 'pending'
            FROM passes p
            WHERE \(filter) AND p.event_id IS NOT NULL AND \(googleEnabledCondition)
                AND NOT EXISTS (SELECT 1 FROM google_classes g WHERE g.event_id = p.event_id AND g.inserted_at IS NOT NULL)
            ON CONFLICT (target) DO NOTHING
            """)
        try executeDeferred("""
            INSERT INTO google_outbox (target, notify, generation, attempts, next_attempt_at, first_enqueued_at, state)
            SELECT 'o:' || \(unsafeRaw: digits), \(notify ? 1 : 0), 1, 0, \(millis), \(millis), 'pending'
            FROM passes p
            WHERE \(filter) AND \(googleEnabledCondition)
            -- Pass order is the targets' byte order (20 digits each): the lock order.
            ORDER BY p.id
            ON CONFLICT (target) DO UPDATE SET \(coalesce)
            """)
    }

    /// The statement enqueueing one ticket's object, for a pass change to carry (in its round trip
    /// on PostgreSQL).
    func googleObjectEnqueue(passID: Int64, notify: Bool, now: Date) -> SQLQuery {
        let millis = now.storageMillis
        return """
            INSERT INTO google_outbox (target, notify, generation, attempts, next_attempt_at, first_enqueued_at, state)
            SELECT \("o:" + GoogleOutboxRow.objectDigits(passID)), \(notify ? 1 : 0), 1, 0, \(millis), \(millis), 'pending'
            WHERE \(googleEnabledCondition)
            ON CONFLICT (target) DO UPDATE SET \(coalesce)
            """
    }

    /// Enqueues an event's class; `notify` asks for a notifying update. Deferred, as objects are.
    func enqueueGoogleClass(eventID: String, notify: Bool, now: Date) throws {
        let millis = now.storageMillis
        try executeDeferred("""
            INSERT INTO google_outbox (target, notify, generation, attempts, next_attempt_at, first_enqueued_at, state)
            SELECT \("c:" + eventID), \(notify ? 1 : 0), 1, 0, \(millis), \(millis), 'pending'
            WHERE \(googleEnabledCondition)
            ON CONFLICT (target) DO UPDATE SET \(coalesce)
            """)
    }

    /// A change arriving for a row that exists: one more generation (the row is sent again after
    /// the send in flight), a notifying request kept, a failed row re-armed as due now.
    private var coalesce: SQLQuery {
        """
        generation = google_outbox.generation + 1,
            notify = \(unsafeRaw: greatest)(google_outbox.notify, excluded.notify),
            attempts = CASE WHEN google_outbox.state = 'failed' THEN 0 ELSE google_outbox.attempts END,
            next_attempt_at = CASE WHEN google_outbox.state = 'failed' THEN excluded.next_attempt_at ELSE google_outbox.next_attempt_at END,
            first_enqueued_at = CASE WHEN google_outbox.state = 'failed' THEN excluded.first_enqueued_at ELSE google_outbox.first_enqueued_at END,
            state = 'pending'
        """
    }

    /// Claims up to `limit` due rows for `lease`, classes first, with what they are written from.
    public func claimGoogle(limit: Int, now: Date, lease: Duration) throws -> [GoogleOutboxRow] {
        var rows = try session.outbox.claimDue(in: .google, returning: GoogleOutboxRow.columns, limit: limit, now: now, lease: lease)
            .map(GoogleOutboxRow.init(row:)).sorted(by: GoogleOutboxRow.locksBefore)
        guard !rows.isEmpty else { return [] }
        let dayAgo = now.addingTimeInterval(-86_400)
        let passIDs: [Int64] = rows.compactMap { if case .object(let id) = $0.target { id } else { nil } }
        var passes: [Int64: StoredPass] = [:]
        var objects: [Int64: GoogleObjectRecord] = [:]
        if !passIDs.isEmpty {
            for row in try execute("SELECT \(StoredPass.columns) FROM passes WHERE \(column("id", in: passIDs))") {
                let pass = try StoredPass(row: row)
                passes[pass.id] = pass
            }
            for record in try googleObjects(passIDs: passIDs) { objects[record.passID] = record }
        }
        var eventIDs = Set(passes.values.compactMap(\.eventID))
        for row in rows { if case .eventClass(let id) = row.target { eventIDs.insert(id) } }
        var events: [String: Event] = [:]
        var classes: [String: (inserted: Bool, notified: [Date], announced: String?)] = [:]
        if !eventIDs.isEmpty {
            let list = textColumn("id", in: eventIDs.sorted())
            for row in try execute("SELECT \(EventOperations.eventColumns) FROM events WHERE \(list)") {
                let event = try Event(row: row)
                events[event.id] = event
            }
            for row in try execute("""
                SELECT event_id, inserted_at, notified_at, announcement_id FROM google_classes WHERE \(textColumn("event_id", in: eventIDs.sorted()))
                """) {
                classes[try row.string("event_id")] = (
                    try row.optionalInt64("inserted_at") != nil, Self.times(try row.string("notified_at")), try row.optionalString("announcement_id")
                )
            }
        }
        for index in rows.indices {
            switch rows[index].target {
            case .object(let passID):
                rows[index].ticket = passes[passID]
                rows[index].event = passes[passID]?.eventID.flatMap { events[$0] }
                rows[index].inserted = objects[passID]?.insertedAt != nil
                rows[index].recentNotifications = (objects[passID]?.notifiedAt ?? []).filter { $0 > dayAgo }
            case .eventClass(let eventID):
                rows[index].event = events[eventID]
                rows[index].inserted = classes[eventID]?.inserted ?? false
                rows[index].recentNotifications = (classes[eventID]?.notified ?? []).filter { $0 > dayAgo }
                rows[index].announced = classes[eventID]?.announced ?? nil
            }
        }
        return rows
    }

    /// Keeps what Google now holds, after the rows were settled in the same transaction: synced
    /// (inserted, its state, a notifying update's time, the last 24 hours of them kept) or failed
    /// (the reason). Rows still pending change nothing.
    public func recordGoogle(_ results: [GoogleResult], now: Date) throws {
        let millis = now.storageMillis
        let dayAgo = now.addingTimeInterval(-86_400)
        var objectRecords = JSONRecords()
        var classRecords = JSONRecords()
        let passIDs: [Int64] = results.compactMap { if case .object(let id) = $0.target { id } else { nil } }
        var notified: [Int64: [Date]] = [:]
        if !passIDs.isEmpty {
            for record in try googleObjects(passIDs: passIDs) { notified[record.passID] = record.notifiedAt }
        }
        var classNotified: [String: [Date]] = [:]
        let eventIDs: [String] = results.compactMap { if case .eventClass(let id) = $0.target { id } else { nil } }
        if !eventIDs.isEmpty {
            for row in try execute("SELECT event_id, notified_at FROM google_classes WHERE \(textColumn("event_id", in: eventIDs.sorted()))") {
                classNotified[try row.string("event_id")] = Self.times(try row.string("notified_at"))
            }
        }
        for result in results {
            let synced: Bool, state: String?, reason: String?, didNotify: Bool, announced: String?
            switch result.kind {
            case .pending: continue
            case .synced(let newState, let notifiedNow, let added): (synced, state, reason, didNotify, announced) = (true, newState, nil, notifiedNow, added)
            case .failed(let why): (synced, state, reason, didNotify, announced) = (false, nil, why, false, nil)
            }
            switch result.target {
            case .object(let passID):
                var times = (notified[passID] ?? []).filter { $0 > dayAgo }
                if didNotify { times.append(now) }
                objectRecords.append([
                    "p": .integer(passID), "s": .integer(synced ? 1 : 0), "st": state.map { .text($0) } ?? .null,
                    "r": reason.map { .text($0) } ?? .null, "n": .text(Self.text(times)),
                ])
            case .eventClass(let eventID):
                var times = (classNotified[eventID] ?? []).filter { $0 > dayAgo }
                if didNotify { times.append(now) }
                classRecords.append([
                    "e": .text(eventID), "s": .integer(synced ? 1 : 0), "r": reason.map { .text($0) } ?? .null, "n": .text(Self.text(times)),
                    "a": announced.map { .text($0) } ?? .null,
                ])
            }
        }
        if objectRecords.count > 0 {
            let values = recordSet(objectRecords, alias: "x", columns: [("p", "bigint"), ("s", "integer"), ("st", "text"), ("r", "text"), ("n", "text")])
            try execute("""
                INSERT INTO google_objects (pass_id, inserted_at, synced_at, state, failed_reason, notified_at)
                SELECT x.p, CASE WHEN x.s = 1 THEN \(millis) END, CASE WHEN x.s = 1 THEN \(millis) END, x.st, x.r, x.n
                FROM \(values) JOIN passes ON passes.id = x.p
                WHERE true
                ON CONFLICT (pass_id) DO UPDATE SET
                    inserted_at = COALESCE(google_objects.inserted_at, excluded.inserted_at),
                    synced_at = COALESCE(excluded.synced_at, google_objects.synced_at),
                    state = COALESCE(excluded.state, google_objects.state),
                    failed_reason = excluded.failed_reason, notified_at = excluded.notified_at
                """)
        }
        if classRecords.count > 0 {
            let values = recordSet(classRecords, alias: "x", columns: [("e", "text"), ("s", "integer"), ("r", "text"), ("n", "text"), ("a", "text")])
            try execute("""
                INSERT INTO google_classes (event_id, inserted_at, synced_at, failed_reason, notified_at, announcement_id)
                SELECT x.e, CASE WHEN x.s = 1 THEN \(millis) END, CASE WHEN x.s = 1 THEN \(millis) END, x.r, x.n, x.a
                FROM \(values) JOIN events ON events.id = x.e
                WHERE true
                ON CONFLICT (event_id) DO UPDATE SET
                    inserted_at = COALESCE(google_classes.inserted_at, excluded.inserted_at),
                    synced_at = COALESCE(excluded.synced_at, google_classes.synced_at),
                    failed_reason = excluded.failed_reason, notified_at = excluded.notified_at,
                    announcement_id = COALESCE(excluded.announcement_id, google_classes.announcement_id)
                """)
        }
    }

    /// What Google holds of these tickets (those it was ever told of).
    public func googleObjects(passIDs: [Int64]) throws -> [GoogleObjectRecord] {
        guard !passIDs.isEmpty else { return [] }
        return try execute("""
            SELECT pass_id, inserted_at, synced_at, state, failed_reason, notified_at FROM google_objects WHERE \(column("pass_id", in: passIDs))
            """).map { row in
            GoogleObjectRecord(
                passID: try row.int64("pass_id"), insertedAt: try row.optionalDate("inserted_at"), syncedAt: try row.optionalDate("synced_at"),
                state: try row.optionalString("state"), failedReason: try row.optionalString("failed_reason"),
                notifiedAt: Self.times(try row.string("notified_at"))
            )
        }
    }

    /// Rows waiting for Google (pending, due or not) and rows given up on.
    public func googleOutboxCounts() throws -> (pending: Int, failed: Int) {
        guard let row = try first("""
            SELECT count(*) FILTER (WHERE state = 'pending') AS pending, count(*) FILTER (WHERE state = 'failed') AS failed FROM google_outbox
            """)
        else { return (0, 0) }
        return (try row.int("pending"), try row.int("failed"))
    }

    private static func times(_ text: String) -> [Date] {
        text.split(separator: ",").compactMap { Int64($0) }.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    private static func text(_ times: [Date]) -> String {
        times.map { String($0.storageMillis) }.joined(separator: ",")
    }
}

public import Foundation
public import PassIdentifiers

extension RegistrationOperations {
    /// Registers a device for a pass (idempotent). The device's push token is replaced when it
    /// changed and `updated_at` is bumped either way. `.notFound` if the pass does not exist.
    ///
    /// With `keepingAtMost`, the pass keeps at most that many registrations: the ones updated
    /// least recently give way to this one, in the same transaction. On PostgreSQL the pass row is
    /// locked first, so concurrent registrations of one pass take turns and cannot overshoot.
    public func upsertRegistration(
        deviceLibraryIdentifier: DeviceLibraryIdentifier, pushToken: PushToken, passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, now: Date,
        keepingAtMost limit: Int? = nil
    ) throws -> RegistrationResult {
        try upsertRegistration(
            deviceLibraryIdentifier: deviceLibraryIdentifier, token: .apns(pushToken),
            passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, now: now, keepingAtMost: limit
        )
    }

    /// Registers a device with the push token of its service (`DevicePushToken`). The device's
    /// push service is the one of its latest registration: a device that registers again with the
    /// other scheme switches.
    public func upsertRegistration(
        deviceLibraryIdentifier: DeviceLibraryIdentifier, token: DevicePushToken, passTypeIdentifier: PassTypeIdentifier,
        serialNumber: SerialNumber, now: Date, keepingAtMost limit: Int? = nil
    ) throws -> RegistrationResult {
        let pushToken = token.rawValue
        let service = token.service
        guard let limit else {
            return try upsertRegistrationRows(
                deviceLibraryIdentifier: deviceLibraryIdentifier, pushToken: pushToken, service: service,
                passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, now: now
            )
        }
        if dialect == .postgres {
            return try registerCapped(
                deviceLibraryIdentifier: deviceLibraryIdentifier, pushToken: pushToken, service: service,
                passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, now: now, limit: max(limit, 1)
            )
        }
        return try transaction {
            let result = try upsertRegistrationRows(
                deviceLibraryIdentifier: deviceLibraryIdentifier, pushToken: pushToken, service: service,
                passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, now: now
            )
            try evictRegistrations(
                passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, keeping: deviceLibraryIdentifier, limit: max(limit, 1)
            )
            return result
        }
    }

    /// PostgreSQL's capped registration in one round trip: BEGIN, the pass row's lock, one
    /// statement doing the rest, and COMMIT go to the server together (a pipeline).
    ///
    /// The lock is a statement of its own, before the one that reads the pass's registrations: in
    /// READ COMMITTED each statement sees what was committed when it began, so the second one,
    /// begun once the lock is held, sees every registration committed by the pass's previous
    /// registrant. (Taken inside the same statement, the lock would be granted after that
    /// statement's snapshot: two first devices would both record `pass.added`, and two newcomers
    /// to a full pass would both keep the limit's last place.) NO KEY UPDATE: registrations of
    /// this pass wait for each other, while the foreign-key checks of other writers (KEY SHARE)
    /// do not wait for us. An unknown pass leaves the statement's foreign-key check failing
    /// (`.notFound`), and the transaction rolls back.
    ///
    /// The statement upserts the device and the registration, deletes the pass's registrations
    /// beyond the `limit` most recently updated (never the registering device's; the new row is
    /// not in the statement's view, hence `limit - 1` others), forgets the devices that held only
    /// an evicted registration, and records `pass.added` when the registration is the pass's
    /// first (an endpoint wanting it). `xmax = 0` is true only for a row this statement inserted.
    private func registerCapped(
        deviceLibraryIdentifier device: DeviceLibraryIdentifier, pushToken: String, service: PushService,
        passTypeIdentifier passType: PassTypeIdentifier, serialNumber serial: SerialNumber, now: Date, limit: Int
    ) throws -> RegistrationResult {
        let millis = now.storageMillis
        let thisPass: SQLQuery = "p.pass_type_identifier = \(passType) AND p.serial_number = \(serial)"
        let added = session.webhooks.ticketWebhookStatement(
            .passAdded, where: "\(thisPass) AND EXISTS (SELECT 1 FROM registration WHERE registration.inserted) AND \(session.webhooks.noRegistration())", now: now
        )
        return try transaction {
            try executeDeferred("""
                SELECT id FROM passes WHERE pass_type_identifier = \(passType) AND serial_number = \(serial) FOR NO KEY UPDATE
                """)
            guard let row = try executeFinal("""
                WITH \(Self.upserts(device: device, pushToken: pushToken, service: service, passType: passType, serial: serial, millis: millis)),
                evicted AS (
                    DELETE FROM registrations
                    WHERE pass_type_identifier = \(passType) AND serial_number = \(serial) AND device_library_identifier <> \(device)
                      AND device_library_identifier NOT IN (
                        SELECT device_library_identifier FROM registrations
                        WHERE pass_type_identifier = \(passType) AND serial_number = \(serial) AND device_library_identifier <> \(device)
                        ORDER BY updated_at DESC, created_at DESC, device_library_identifier DESC
                        LIMIT \(limit - 1))
                    RETURNING device_library_identifier),
                forgotten AS (
                    DELETE FROM devices d USING evicted e
                    WHERE d.device_library_identifier = e.device_library_identifier
                      AND NOT EXISTS (SELECT 1 FROM registrations r WHERE r.device_library_identifier = e.device_library_identifier
                        AND (r.pass_type_identifier <> \(passType) OR r.serial_number <> \(serial)))
                    RETURNING 1),
                added AS (\(added))
                SELECT inserted FROM registration
                """).first
            else { throw StorageError(.backend, "upsert returned no row") }
            return try row.int64("inserted") == 1 ? .created : .updated
        }
    }

    private func upsertRegistrationRows(
        deviceLibraryIdentifier: DeviceLibraryIdentifier, pushToken: String, service: PushService, passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, now: Date
    ) throws -> RegistrationResult {
        let millis = now.storageMillis
        let thisPass: SQLQuery = "p.pass_type_identifier = \(passTypeIdentifier) AND p.serial_number = \(serialNumber)"
        if dialect == .postgres {
            // One round trip: both upserts in one statement (foreign keys are checked at its end);
            // `xmax = 0` is true only for a row this statement inserted. The pass's first device
            // (a registration inserted where the statement's view has none) is a `pass.added`
            // webhook, recorded in the same statement when an endpoint wants it.
            let added = session.webhooks.ticketWebhookStatement(
                .passAdded, where: "\(thisPass) AND EXISTS (SELECT 1 FROM registration WHERE registration.inserted) AND \(session.webhooks.noRegistration())", now: now
            )
            guard let row = try first("""
                WITH \(Self.upserts(
                    device: deviceLibraryIdentifier, pushToken: pushToken, service: service, passType: passTypeIdentifier, serial: serialNumber, millis: millis
                )),
                added AS (\(added))
                SELECT inserted FROM registration
                """)
            else { throw StorageError(.backend, "upsert returned no row") }
            return try row.int64("inserted") == 1 ? .created : .updated
        }
        return try transaction {
            try execute("""
                INSERT INTO devices (device_library_identifier, push_token, push_service, updated_at)
                VALUES (\(deviceLibraryIdentifier), \(pushToken), \(service), \(millis))
                ON CONFLICT (device_library_identifier) DO UPDATE SET push_token = excluded.push_token,
                    push_service = excluded.push_service, updated_at = excluded.updated_at
                """)
            let inserted = try execute("""
                INSERT INTO registrations (device_library_identifier, pass_type_identifier, serial_number, created_at, updated_at)
                VALUES (\(deviceLibraryIdentifier), \(passTypeIdentifier), \(serialNumber), \(millis), \(millis))
                ON CONFLICT (device_library_identifier, pass_type_identifier, serial_number) DO NOTHING
                RETURNING created_at
                """)
            if !inserted.isEmpty {
                try session.webhooks.enqueueTicketWebhooks(.passAdded, where: "\(thisPass) AND \(session.webhooks.noRegistration(except: deviceLibraryIdentifier.rawValue))", now: now)
                return .created
            }
            try execute("""
                UPDATE registrations SET updated_at = \(millis)
                WHERE device_library_identifier = \(deviceLibraryIdentifier)
                  AND pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
                """)
            return .updated
        }
    }

    /// The CTEs `device` and `registration` upserting a device and its registration of a pass in
    /// one PostgreSQL statement (foreign keys are checked at its end); `registration.inserted` is
    /// true for a new registration (`xmax = 0` only for a row the statement inserted).
    private static func upserts(
        device: DeviceLibraryIdentifier, pushToken: String, service: PushService, passType: PassTypeIdentifier, serial: SerialNumber, millis: Int64
    ) -> SQLQuery {
        """
        device AS (
            INSERT INTO devices (device_library_identifier, push_token, push_service, updated_at)
            VALUES (\(device), \(pushToken), \(service), \(millis))
            ON CONFLICT (device_library_identifier) DO UPDATE SET push_token = excluded.push_token,
                push_service = excluded.push_service, updated_at = excluded.updated_at
            RETURNING 1),
        registration AS (
            INSERT INTO registrations (device_library_identifier, pass_type_identifier, serial_number, created_at, updated_at)
            VALUES (\(device), \(passType), \(serial), \(millis), \(millis))
            ON CONFLICT (device_library_identifier, pass_type_identifier, serial_number) DO UPDATE SET updated_at = excluded.updated_at
            RETURNING (xmax = 0) AS inserted)
        """
    }

    /// Deletes the registrations of a pass beyond the `limit` most recently updated, never the
    /// one of `keeping` (the device registering now); devices left with no registration go too.
    private func evictRegistrations(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, keeping device: DeviceLibraryIdentifier, limit: Int) throws {
        let evicted = try execute("""
            DELETE FROM registrations
            WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
              AND device_library_identifier <> \(device)
              AND device_library_identifier NOT IN (
                SELECT device_library_identifier FROM registrations
                WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
                  AND device_library_identifier <> \(device)
                ORDER BY updated_at DESC, created_at DESC, device_library_identifier DESC
                LIMIT \(limit - 1))
            RETURNING device_library_identifier
            """)
        for row in evicted {
            let gone = try row.string("device_library_identifier")
            try execute("""
                DELETE FROM devices WHERE device_library_identifier = \(gone)
                  AND NOT EXISTS (SELECT 1 FROM registrations WHERE device_library_identifier = \(gone))
                """)
        }
    }

    /// Removes a registration; a missing one is not an error. Returns whether one was removed.
    /// A device left with no registration is forgotten too. The pass's last device gone is a
    /// `pass.removed` webhook (when an endpoint wants it); on PostgreSQL the pass row is locked
    /// first, so of two of its devices unregistering at once the second sees the first gone.
    @discardableResult
    public func deleteRegistration(
        deviceLibraryIdentifier: DeviceLibraryIdentifier, passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, now: Date = Date()
    ) throws -> Bool {
        return try transaction {
            // PostgreSQL runs a WITH query only when the statement reads it: the EXISTS does.
            let (lock, locked): (SQLQuery, SQLQuery) = dialect == .postgres
                ? ("WITH locked AS (SELECT id FROM passes WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber) FOR NO KEY UPDATE) ",
                   " AND EXISTS (SELECT 1 FROM locked)")
                : ("", "")
            let deleted = try execute("""
                \(lock)DELETE FROM registrations WHERE device_library_identifier = \(deviceLibraryIdentifier)
                  AND pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)\(locked)
                RETURNING device_library_identifier
                """)
            if !deleted.isEmpty {
                try session.webhooks.enqueueTicketWebhooks(
                    .passRemoved, where: "p.pass_type_identifier = \(passTypeIdentifier) AND p.serial_number = \(serialNumber) AND \(session.webhooks.noRegistration())", now: now
                )
            }
            try execute("""
                DELETE FROM devices WHERE device_library_identifier = \(deviceLibraryIdentifier)
                  AND NOT EXISTS (SELECT 1 FROM registrations WHERE device_library_identifier = \(deviceLibraryIdentifier))
                """)
            return !deleted.isEmpty
        }
    }

    /// Serial numbers registered to the device for the pass type whose revision is above
    /// `updatedAfter` (all of them when `nil`), with the highest revision among them, and whether
    /// any of their registrations has yet to be told that revision (`recordTold`). One query.
    public func serials(deviceLibraryIdentifier: DeviceLibraryIdentifier, passTypeIdentifier: PassTypeIdentifier, updatedAfter: Int64?) throws -> ChangedSerials {
        let rows = try execute(Self.serialsQuery(deviceLibraryIdentifier: deviceLibraryIdentifier, passTypeIdentifier: passTypeIdentifier, updatedAfter: updatedAfter))
        var serials: [SerialNumber] = []
        var last: Int64?
        var toldBefore: [Int64?] = []
        for row in rows {
            serials.append(SerialNumber(trusted: try row.string("serial_number")))
            let revision = try row.int64("revision")
            last = max(last ?? revision, revision)
            toldBefore.append(try row.optionalInt64("told_revision"))
        }
        let needsTelling = last.map { tag in toldBefore.contains { ($0 ?? -1) < tag } } ?? false
        return ChangedSerials(serialNumbers: serials, lastRevision: last, needsTelling: needsTelling)
    }

    /// The statement of `serials`. Anyone can ask it about any device (Apple's protocol has no
    /// credentials here), so it must cost what the device's registrations cost: the loop runs over
    /// the device's registrations of the type (a range of their primary key, nothing for an
    /// unknown device) and looks each pass up by its unique key. SQLite's planner, without
    /// statistics, would rather walk the type's passes in serial order to save the sort, probing
    /// registrations for each: every pass of the type, per request. `CROSS JOIN` makes SQLite keep
    /// the tables in the order written (PostgreSQL plans it as any inner join), and ordering by the
    /// registration's serial, the last column of that key range, needs no sort.
    /// `QueryPlanTests` pins the plan.
    static func serialsQuery(deviceLibraryIdentifier: DeviceLibraryIdentifier, passTypeIdentifier: PassTypeIdentifier, updatedAfter: Int64?) -> SQLQuery {
        """
        SELECT p.serial_number, p.revision, r.told_revision FROM registrations r
        CROSS JOIN passes p
        WHERE r.device_library_identifier = \(deviceLibraryIdentifier) AND r.pass_type_identifier = \(passTypeIdentifier)
          AND p.pass_type_identifier = r.pass_type_identifier AND p.serial_number = r.serial_number
          AND p.revision > \(updatedAfter ?? -1)
        ORDER BY r.serial_number
        """
    }

    /// Distinct push tokens of the devices registered for a pass. One query.
    public func pushTokens(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber) throws -> [PushToken] {
        try execute("""
            SELECT DISTINCT d.push_token FROM registrations r
            JOIN devices d ON d.device_library_identifier = r.device_library_identifier
            WHERE r.pass_type_identifier = \(passTypeIdentifier) AND r.serial_number = \(serialNumber)
            ORDER BY d.push_token
            """).map { PushToken(trusted: try $0.string("push_token")) }
    }

    /// How many devices are registered for a pass.
    public func registrationCount(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber) throws -> Int {
        try first("""
            SELECT count(*) AS n FROM registrations
            WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
            """)?.int("n") ?? 0
    }

    /// Deletes the registrations of a push token for a pass type (APNs 410, `BadDeviceToken`,
    /// `DeviceTokenNotForTopic`), except those updated after `unlessUpdatedAfter` (APNs's 410
    /// timestamp: the device registered again since). With `record`, each deleted registration is
    /// kept in its pass's list of prunes (`recentPrunes`). Returns how many were deleted.
    @discardableResult
    public func pruneRegistrations(
        pushToken: PushToken, passTypeIdentifier: PassTypeIdentifier, unlessUpdatedAfter cutoff: Date?, record: RegistrationPrune? = nil
    ) throws -> Int {
        // Built conditionally: an untyped NULL parameter in `$n IS NULL` has no type on PostgreSQL.
        let olderOnly: SQLQuery = cutoff.map { " AND updated_at <= \($0.storageMillis)" } ?? ""
        return try transaction {
            let deleted = try execute("""
                DELETE FROM registrations
                WHERE pass_type_identifier = \(passTypeIdentifier)
                  AND device_library_identifier IN (SELECT device_library_identifier FROM devices WHERE push_token = \(pushToken))
                  \(olderOnly)
                RETURNING serial_number
                """)
            try execute("""
                DELETE FROM devices WHERE push_token = \(pushToken) AND NOT EXISTS
                  (SELECT 1 FROM registrations r WHERE r.device_library_identifier = devices.device_library_identifier)
                """)
            // The last device of a pass gone is a `pass.removed` webhook (when an endpoint wants
            // it). Unlike an unregistration, the pass is not locked here (the dispatcher locks
            // registrations, not passes): a phone unregistering the same pass at this very moment
            // may leave both transactions seeing the other's device, and no webhook.
            let serials = Set(try deleted.map { try $0.string("serial_number") }).sorted()
            if !serials.isEmpty {
                try session.webhooks.enqueueTicketWebhooks(
                    .passRemoved,
                    where: "p.pass_type_identifier = \(passTypeIdentifier) AND \(textColumn("p.serial_number", in: serials)) AND \(session.webhooks.noRegistration())",
                    now: record?.prunedAt ?? Date()
                )
            }
            if let record {
                for row in deleted {
                    try recordPrune(record, passTypeIdentifier: passTypeIdentifier, serialNumber: SerialNumber(trusted: try row.string("serial_number")))
                }
            }
            return deleted.count
        }
    }

    /// Locks the registrations of these push tokens' devices in primary-key order, inside the
    /// surrounding transaction, before several prunes delete some of them: a re-push batch locks
    /// the registrations it updates in the same order, so the two cannot deadlock. PostgreSQL
    /// only (SQLite has a single writer).
    public func lockRegistrations(pushTokens: [PushToken]) throws {
        guard dialect == .postgres, !pushTokens.isEmpty else { return }
        let tokens = SQLQuery.joined(Set(pushTokens.map(\.rawValue)).sorted().map { "\($0)" }, separator: ", ")
        try execute("""
            SELECT r.device_library_identifier FROM registrations r
            JOIN devices d ON d.device_library_identifier = r.device_library_identifier
            WHERE d.push_token IN (\(tokens))
            ORDER BY r.device_library_identifier, r.pass_type_identifier, r.serial_number
            FOR UPDATE OF r
            """)
    }

    /// The newest prunes of a pass's registrations, newest first.
    public func recentPrunes(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, limit: Int = RegistrationPrune.keptPerPass) throws -> [RegistrationPrune] {
        try execute("""
            SELECT token_hash, status, reason, pruned_at FROM registration_prunes
            WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
            ORDER BY id DESC LIMIT \(limit)
            """).map { row in
            RegistrationPrune(
                tokenHash: try row.string("token_hash"), status: try row.int("status"), reason: try row.string("reason"),
                prunedAt: try row.date("pruned_at")
            )
        }
    }

    /// Adds one prune to a pass's list and drops what falls beyond `keptPerPass`.
    private func recordPrune(_ prune: RegistrationPrune, passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber) throws {
        try execute("""
            INSERT INTO registration_prunes (pass_type_identifier, serial_number, token_hash, status, reason, pruned_at)
            VALUES (\(passTypeIdentifier), \(serialNumber), \(prune.tokenHash), \(prune.status), \(prune.reason), \(prune.prunedAt.storageMillis))
            """)
        try execute("""
            DELETE FROM registration_prunes
            WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
              AND id NOT IN (SELECT id FROM registration_prunes
                WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
                ORDER BY id DESC LIMIT \(RegistrationPrune.keptPerPass))
            """)
    }
}

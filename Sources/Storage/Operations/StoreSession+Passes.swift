public import Foundation
public import PassIdentifiers

extension PassOperations {
    /// Creates a pass with a fresh revision; `.conflict` if the serial, the download token or the
    /// external id within the event exists, `.notFound` if its event does not.
    public func insertPass(_ pass: NewPass, now: Date) throws -> StoredPass {
        try transaction {
            let revision = try nextRevision()
            let rows = try execute("""
                INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash,
                    event_id, attendee_name, attendee_email, seat, external_id, extra, search_text, language, status, revision, modified_at,
                    created_at, order_id)
                VALUES (\(pass.passTypeIdentifier), \(pass.serialNumber), \(pass.authenticationTokenHash), \(pass.downloadTokenHash),
                    \(pass.eventID), \(pass.attendeeName), \(pass.attendeeEmail), \(pass.seat), \(pass.externalID),
                    \(ExtraColumn.encode(pass.extra)), \(pass.searchText), \(pass.language), 'active', \(revision),
                    \(now.storageSeconds), \(now.storageMillis), \(pass.orderID))
                RETURNING \(StoredPass.columns)
                """)
            guard let row = rows.first else { throw StorageError(.backend, "insert returned no row") }
            let stored = try StoredPass(row: row)
            try session.google.enqueueGoogleObjects(where: "p.id = \(stored.id)", notify: false, now: now)
            try session.webhooks.enqueueTicketWebhooks(.ticketIssued, where: "p.id = \(stored.id)", now: now)
            return stored
        }
    }

    public func pass(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber) throws -> StoredPass? {
        try first("""
            SELECT \(StoredPass.columns) FROM passes
            WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
            """).map(StoredPass.init(row:))
    }

    /// The head of a pass (`PassHead`): what a phone's fetch reads while its bundle is cached.
    /// One index lookup returning five small columns.
    public func passHead(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber) throws -> PassHead? {
        guard let row = try first("""
            SELECT authentication_token_hash, revision, modified_at, served_revision FROM passes
            WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
            """) else { return nil }
        return PassHead(
            passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, authenticationTokenHash: try row.bytes("authentication_token_hash"),
            revision: try row.int64("revision"), modifiedAt: try row.int64("modified_at"), servedRevision: try row.optionalInt64("served_revision")
        )
    }

    /// The head of a pass and, when the pass was modified after `since` (whole seconds, as
    /// `Last-Modified`), the pass whole with its event: a phone asking with `If-Modified-Since`
    /// for a pass changed since is sent the pass, and unless its bundle is cached that needs the
    /// whole row. On PostgreSQL one statement from one snapshot, whose part reading the whole row
    /// runs only for a changed pass (a 304 reads the head alone); on SQLite, in process, the head
    /// and then the whole row. The head of a pass read whole is the whole row's.
    public func passHead(
        passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, wholeIfModifiedAfter since: Int64
    ) throws -> (head: PassHead, whole: (pass: StoredPass, event: Event?)?)? {
        guard dialect == .postgres else {
            guard let head = try passHead(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber) else { return nil }
            guard head.modifiedAt > since, let whole = try passWithEvent(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber) else {
                return (head, nil)
            }
            return (PassHead(whole.pass), whole)
        }
        // OFFSET 0 keeps the subquery whole, so its condition on the head's row is a one-time
        // filter in front of it: for an unchanged pass neither the pass nor its event is read again.
        guard let row = try first("""
            SELECT h.authentication_token_hash, h.revision, h.modified_at, h.served_revision, w.*
            FROM passes h LEFT JOIN LATERAL (
                SELECT \(Self.passWithEventColumns) FROM passes p LEFT JOIN events e ON e.id = p.event_id
                WHERE p.id = h.id AND h.modified_at > \(since) OFFSET 0) w ON true
            WHERE h.pass_type_identifier = \(passTypeIdentifier) AND h.serial_number = \(serialNumber)
            """) else { return nil }
        let headColumns = 4
        let whole = row.columns(from: headColumns)
        if try whole.optionalInt64("id") != nil {
            let found = try Self.passWithEvent(whole)
            return (PassHead(found.pass), found)
        }
        let head = row.columns(upTo: headColumns)
        return (PassHead(
            passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, authenticationTokenHash: try head.bytes("authentication_token_hash"),
            revision: try head.int64("revision"), modifiedAt: try head.int64("modified_at"), servedRevision: try head.optionalInt64("served_revision")
        ), nil)
    }

    /// The pass with its event (nil when it has none), read in one statement: what a phone's
    /// fetch needs to build the pass, from one snapshot.
    public func passWithEvent(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber) throws -> (pass: StoredPass, event: Event?)? {
        guard let row = try first("""
            SELECT \(Self.passWithEventColumns) FROM passes p LEFT JOIN events e ON e.id = p.event_id
            WHERE p.pass_type_identifier = \(passTypeIdentifier) AND p.serial_number = \(serialNumber)
            """) else { return nil }
        return try Self.passWithEvent(row)
    }

    /// The pass and its event from a row of `passWithEventColumns`: the pass's columns first,
    /// then the event's (NULL without an event).
    private static func passWithEvent(_ row: SQLRow) throws -> (pass: StoredPass, event: Event?) {
        let passColumns = StoredPass.columnNames.count
        let event = row.columns(from: passColumns)
        return (try StoredPass(row: row.columns(upTo: passColumns)), try event.optionalString("id") == nil ? nil : Event(row: event))
    }

    /// `p.<pass columns>, e.<event columns>`, built once: every phone's fetch runs the statement.
    private static let passWithEventColumns = SQLQuery(
        unsafeRaw: (StoredPass.columnNames.map { "p.\($0)" } + EventOperations.eventColumnNames.map { "e.\($0)" }).joined(separator: ", ")
    )

    public func pass(downloadTokenHash: [UInt8]) throws -> StoredPass? {
        try first("SELECT \(StoredPass.columns) FROM passes WHERE download_token_hash = \(downloadTokenHash)")
            .map(StoredPass.init(row:))
    }

    /// Gives a pass its next download link: the nonce moves one up and the stored hash becomes
    /// `tokenHash(nonce)`, in one transaction, so the previous link stops working at commit.
    /// Returns the pass after the change, or nil if it does not exist.
    public func rotateDownloadToken(
        passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, tokenHash: (Int64) throws -> [UInt8]
    ) throws -> StoredPass? {
        try transaction {
            guard let row = try first("""
                UPDATE passes SET download_nonce = download_nonce + 1
                WHERE pass_type_identifier = \(passTypeIdentifier) AND serial_number = \(serialNumber)
                RETURNING id, download_nonce
                """)
            else { return nil }
            let nonce = try row.int64("download_nonce")
            return try first("""
                UPDATE passes SET download_token_hash = \(try tokenHash(nonce)) WHERE id = \(try row.int64("id"))
                RETURNING \(StoredPass.columns)
                """).map(StoredPass.init(row:))
        }
    }

    /// One page of an event's passes in id order, starting after pass id `after`.
    public func passes(eventID: String, after: Int64 = 0, limit: Int) throws -> [StoredPass] {
        try passes(eventID: eventID, matching: PassFilter(), after: after, limit: limit)
    }

    /// Applies `change` in one transaction: takes a new revision, sets
    /// `modified_at = max(now, previous + 1)`, enqueues a push for every token registered to
    /// the pass (owned by its event; none while its event is archived) and gives its registrations
    /// the new revision (none of them is up to date until told and served it). A change that
    /// alters nothing returns `.unchanged` without taking a revision.
    /// Throws `.notFound` if the pass does not exist.
    public func updatePass(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, change: PassChange, now: Date) throws -> PassUpdate {
        try updatePass(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, now: now) { _ in change }
    }

    /// Like `updatePass(…change:now:)`, with the change decided by `decide` from the pass as it is
    /// inside the transaction, under its row lock (PostgreSQL `FOR UPDATE`; SQLite's write lock):
    /// a rule checked there ("a cancelled ticket cannot be renamed") cannot be overtaken by a
    /// concurrent change committed between the check and the update. An error thrown by `decide`
    /// rolls the transaction back and is rethrown as is.
    public func updatePass(
        passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, now: Date, _ decide: (StoredPass) throws -> PassChange
    ) throws -> PassUpdate {
        try transaction {
            guard let locked = try lockedPass(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber) else {
                throw StorageError(.notFound, "no such pass")
            }
            return try apply(try decide(locked.pass), to: locked, final: true, now: now)
        }
    }

    /// The pass, locked until the end of the transaction (PostgreSQL `FOR UPDATE`; SQLite's write
    /// lock), and whether its event is archived, read in the same statement; nil if it does not exist.
    func lockedPass(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber) throws -> LockedPass? {
        guard let row = try first("""
            SELECT \(StoredPass.columns(prefix: "p")), CASE WHEN e.archived_at IS NULL THEN 0 ELSE 1 END AS event_archived
            FROM passes p LEFT JOIN events e ON e.id = p.event_id
            WHERE p.pass_type_identifier = \(passTypeIdentifier) AND p.serial_number = \(serialNumber)\(unsafeRaw: dialect == .postgres ? " FOR UPDATE OF p" : "")
            """)
        else { return nil }
        return LockedPass(pass: try StoredPass(row: row), eventArchived: try row.int("event_archived") != 0)
    }

    /// Applies `change` to the pass `lockedPass` locked in this transaction (see `updatePass`).
    /// `alongside`, a statement of the caller's on rows only this pass's lock guards, is written in
    /// the same round trip on PostgreSQL and just before the change on SQLite.
    ///
    /// Taking the revision locks the counter's row until commit: every change of every pass waits
    /// for it, in commit order, so that revisions become visible in the order they were taken.
    /// What needs no revision (whether the event is archived) is read before; on PostgreSQL the
    /// counter, the pass, its pushes and its registrations are updated in one statement, so the
    /// lock is held for that statement and the commit.
    ///
    /// `final`: the change is the last thing the caller's own transaction does, so its statement
    /// ends the transaction (`executeFinal`): in the outermost transaction on PostgreSQL the COMMIT
    /// goes in the statement's round trip and the counter's lock is released without waiting for
    /// this process. Nested in another transaction, the outermost one commits as usual.
    ///
    /// A change of the ticket's own data records its webhook event (`webhookType`) with the pass as
    /// changed, in the same statement on PostgreSQL; `webhookDetail` goes with it (a check-in's gate).
    func apply(
        _ change: PassChange, to locked: LockedPass, alongside: SQLQuery? = nil, final: Bool = false, webhookDetail: WebhookDetail? = nil, now: Date
    ) throws -> PassUpdate {
        let current = locked.pass
        let target = change.applied(to: current)
        if target == current && !change.touch {
            if let alongside { try execute(alongside) }
            return .unchanged(current)
        }
        let webhook = Self.webhookType(from: current, to: target)
        // The email's language is no part of the pass: no new revision, nothing to tell phones.
        var sameContent = target
        sameContent.language = current.language
        if sameContent == current && !change.touch {
            if let alongside { try execute(alongside) }
            guard let row = try first("""
                UPDATE passes SET language = \(target.language) WHERE id = \(current.id) RETURNING \(StoredPass.columns)
                """)
            else { throw StorageError(.notFound, "no such pass") }
            if let webhook { try session.webhooks.enqueueTicketWebhooks(webhook, where: "p.id = \(current.id)", now: now) }
            return .updated(try StoredPass(row: row), pushTokensEnqueued: 0)
        }
        // An archived event's passes change without telling phones (they see it when they ask).
        let archived = locked.eventArchived
        let assignments: SQLQuery = """
            attendee_name = \(target.attendeeName), attendee_email = \(target.attendeeEmail),
            seat = \(target.seat), external_id = \(target.externalID), extra = \(ExtraColumn.encode(target.extra)),
            search_text = \(target.searchText), status = \(target.status.rawValue), void_reason = \(target.cancellationReason),
            language = \(target.language), checked_in_at = \(target.checkedInAt.map(\.storageMillis)),
            modified_at = \(unsafeRaw: greatest)(\(now.storageSeconds), modified_at + 1)
            """
        // What a Google Wallet object shows: its holder, seat and state (cancelled, checked in). A
        // cancellation or a new seat is worth a notification; a rename or a check-in is not.
        let googleNotify = target.status != current.status || target.seat != current.seat
        let google: SQLQuery? = googleNotify || target.attendeeName != current.attendeeName
            || target.checkedInAt?.storageMillis != current.checkedInAt?.storageMillis
            ? session.google.googleObjectEnqueue(passID: current.id, notify: googleNotify, now: now) : nil
        let thisPass: SQLQuery = "r.pass_type_identifier = \(current.passTypeIdentifier) AND r.serial_number = \(current.serialNumber)"
        let owner = PushOwner(eventID: target.eventID, jobID: nil)
        if dialect == .postgres {
            // One statement, so the counter's lock is held for it and the commit only. The
            // sub-statements lock in the order every other writer does: the counter and the pass
            // (`upd`, which the answer reads first), the outbox rows (`pushes`, counted by the
            // answer), then the registrations (`regs`, which nothing reads: PostgreSQL runs it
            // after the answer). The dispatcher locks outbox rows, then registrations.
            let pushes: SQLQuery = archived
                ? "SELECT 1 AS id WHERE false"
                : enqueueStatement(where: thisPass, owner: owner, now: now)
            let extra: SQLQuery = alongside.map { "alongside AS (\($0))," } ?? ""
            let googleCTE: SQLQuery = google.map { ", google AS (\($0))" } ?? ""
            let hookCTE: SQLQuery = webhook.map { type in
                ", hook AS (\(session.webhooks.ticketWebhookStatement(type, from: "upd p", where: "true", detail: WebhookOperations.detailParameter(webhookDetail), now: now)))"
            } ?? ""
            let statement: SQLQuery = """
                WITH \(extra)next AS (UPDATE counters SET value = value + 1 WHERE name = 'revision' RETURNING value),
                upd AS (
                    UPDATE passes SET \(assignments), revision = next.value FROM next
                    WHERE passes.id = \(current.id)
                    RETURNING \(StoredPass.columns(prefix: "passes"))),
                pushes AS (\(pushes)),
                regs AS (
                    UPDATE registrations r SET pass_revision = next.value FROM next
                    WHERE \(thisPass))\(googleCTE)\(hookCTE)
                SELECT upd.*, (SELECT count(*) FROM pushes) AS enqueued FROM upd
                """
            guard let row = try (final ? executeFinal(statement) : execute(statement)).first
            else { throw StorageError(.notFound, "no such pass") }
            return .updated(try StoredPass(row: row), pushTokensEnqueued: try row.int("enqueued"))
        }
        if let alongside { try execute(alongside) }
        let revision = try nextRevision()
        guard let updatedRow = try first("""
            UPDATE passes SET \(assignments), revision = \(revision) WHERE id = \(current.id)
            RETURNING \(StoredPass.columns)
            """)
        else { throw StorageError(.notFound, "no such pass") }
        let updated = try StoredPass(row: updatedRow)
        let enqueued = archived ? 0 : try enqueuePushes(where: thisPass, owner: owner, now: now)
        if let google { try executeDeferred(google) }
        if let webhook { try session.webhooks.enqueueTicketWebhooks(webhook, where: "p.id = \(current.id)", detail: WebhookOperations.detailParameter(webhookDetail), now: now) }
        // After the outbox rows: the dispatcher locks outbox rows, then registrations.
        let registrations: SQLQuery = """
            UPDATE registrations SET pass_revision = \(updated.revision)
            WHERE pass_type_identifier = \(current.passTypeIdentifier) AND serial_number = \(current.serialNumber)
            """
        if final { try executeFinal(registrations) } else { try execute(registrations) }
        return .updated(updated, pushTokensEnqueued: enqueued)
    }

    /// Inserts or coalesces one outbox row per distinct (push token, pass type) among the
    /// registrations matching `filter` (a condition on `r` registrations, `d` devices and, when
    /// joined, `p` passes). Returns the number of pairs enqueued.
    ///
    /// The row goes through its devices' push service (`min`: should the same token string be
    /// registered for both services, APNs wins, so a relay registration, whose token an attendee
    /// chooses, can never divert an APNs push).
    ///
    /// A pair that already has a row gets its `generation` bumped; a row backing off keeps its
    /// next attempt time (the retry will carry the new change anyway, and resetting it would defeat
    /// the backoff), while a failed row is re-armed as pending and due now. Every row enqueued
    /// belongs to `owner` from now on: its outcome is tallied for that event and job.
    ///
    /// Existing rows are locked in `OutboxRow.locksBefore` order, the order the dispatcher records
    /// outcomes in, so an enqueue and a recording that touch the same rows cannot deadlock.
    ///
    /// Joined with passes (a re-push batch), PostgreSQL reads the batch's passes first and looks up
    /// each one's registrations by index: a `LATERAL` subquery behind `OFFSET 0`, which the planner
    /// cannot flatten. A plain join let it scan every registration of the database once per batch
    /// (a hash join it estimated cheaper than 500 index lookups), 4× slower at 100,000
    /// registrations and growing with the database. SQLite's planner takes the index on its own.
    func enqueuePushes(where filter: SQLQuery, joinPasses: Bool = false, owner: PushOwner, now: Date) throws -> Int {
        try execute(enqueueStatement(where: filter, joinPasses: joinPasses, owner: owner, now: now)).count
    }

    /// The statement `enqueuePushes` runs: an upsert returning one `id` per pair enqueued.
    func enqueueStatement(where filter: SQLQuery, joinPasses: Bool = false, owner: PushOwner, now: Date) -> SQLQuery {
        let source: SQLQuery
        if !joinPasses {
            source = "registrations r JOIN devices d ON d.device_library_identifier = r.device_library_identifier"
        } else if dialect == .postgres {
            source = """
                passes p CROSS JOIN LATERAL (SELECT r.device_library_identifier, r.pass_type_identifier FROM registrations r
                    WHERE r.pass_type_identifier = p.pass_type_identifier AND r.serial_number = p.serial_number OFFSET 0) r
                JOIN devices d ON d.device_library_identifier = r.device_library_identifier
                """
        } else {
            source = """
                registrations r JOIN devices d ON d.device_library_identifier = r.device_library_identifier
                JOIN passes p ON p.pass_type_identifier = r.pass_type_identifier AND p.serial_number = r.serial_number
                """
        }
        let millis = now.storageMillis
        // `WHERE true`: SQLite needs a WHERE before an upsert's ON CONFLICT (parsing ambiguity).
        return """
            INSERT INTO push_outbox (push_token, pass_type_identifier, push_service, generation, attempts, next_attempt_at, first_enqueued_at, state,
                event_id, job_id)
            SELECT pairs.push_token, pairs.pass_type_identifier, pairs.push_service, 1, 0, \(millis), \(millis), 'pending', \(owner.eventID), \(owner.jobID)
            FROM (SELECT d.push_token, r.pass_type_identifier, min(d.push_service) AS push_service
                FROM \(source)
                WHERE \(filter)
                GROUP BY d.push_token, r.pass_type_identifier) pairs
            WHERE true
            ORDER BY pairs.push_token\(unsafeRaw: bytewise), pairs.pass_type_identifier\(unsafeRaw: bytewise)
            ON CONFLICT (push_token, pass_type_identifier) DO UPDATE SET
                generation = push_outbox.generation + 1,
                attempts = CASE WHEN push_outbox.state = 'failed' THEN 0 ELSE push_outbox.attempts END,
                next_attempt_at = CASE WHEN push_outbox.state = 'failed' THEN excluded.next_attempt_at
                    ELSE push_outbox.next_attempt_at END,
                first_enqueued_at = CASE WHEN push_outbox.state = 'failed' THEN excluded.first_enqueued_at
                    ELSE push_outbox.first_enqueued_at END,
                state = 'pending', push_service = excluded.push_service, event_id = excluded.event_id, job_id = excluded.job_id
            RETURNING id
            """
    }
}

extension PassOperations {
    /// The webhook event a change of a ticket makes: cancelled, checked in, or updated when its own
    /// data changed (holder, email, seat, external id, extra fields, language, an undone check-in);
    /// nil when nothing a webhook shows changed (a re-push's new revision).
    static func webhookType(from current: StoredPass, to target: StoredPass) -> WebhookEventType? {
        if target.status == .cancelled && current.status != .cancelled { return .ticketCancelled }
        if target.checkedInAt != nil && current.checkedInAt == nil { return .ticketCheckedIn }
        let changed = target.attendeeName != current.attendeeName || target.attendeeEmail != current.attendeeEmail
            || target.seat != current.seat || target.externalID != current.externalID || target.extra != current.extra
            || target.language != current.language || target.status != current.status
            || target.cancellationReason != current.cancellationReason
            || target.checkedInAt?.storageMillis != current.checkedInAt?.storageMillis
        return changed ? .ticketUpdated : nil
    }
}

/// A pass locked for a change, with what the change needs to know of its event.
struct LockedPass {
    var pass: StoredPass
    /// Its event is archived: the change tells no phone.
    var eventArchived: Bool
}

/// Who a push belongs to: the event whose pass changed and the re-push job that changed it (nil
/// for a single ticket's change).
struct PushOwner {
    var eventID: String?
    var jobID: String?
}

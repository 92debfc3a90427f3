public import Foundation

// The mail outbox (`mail_outbox`) and what became of each ticket's email (`ticket_emails`).
//
// An order's tickets get one email, the order's (migration 25): its outbox row belongs to the
// order's first ticket and names the order; its state is kept on the order (`orders.email_*`) and
// on the `ticket_emails` rows of the tickets it was queued for, so each of them reports it. A
// ticket of an order never gets an email of its own.
//
// Lock order, in every transaction that touches several rows: `mail_outbox` rows by `pass_id`,
// then `orders` rows by `id`, then `ticket_emails` rows by `pass_id`. Enqueueing writes them in
// that order; recording the answers settles the outbox rows first (`settleOutbox(_:in: .mail)`)
// and then locks and updates the orders' and the tickets' rows. None of them touches `passes` or
// `jobs` rows, so an edit or a send job never waits for them in a cycle.

extension MailOperations {
    /// Queues the email of each of these tickets (a ticket's own send). A ticket whose email is
    /// already queued stays as it is (one message); one that was sent or failed is queued again.
    /// Tickets without an address, cancelled, or of an order (their email is the order's) are
    /// skipped. Returns the tickets queued.
    @discardableResult
    public func enqueueEmails(passIDs: [Int64], now: Date) throws -> [Int64] {
        guard !passIDs.isEmpty else { return [] }
        return try enqueueEmails(where: column("p.id", in: passIDs), jobID: nil, resend: true, now: now)
    }

    /// Inserts (or re-arms a failed) outbox row for every ticket matching `filter` (a condition on
    /// `p` passes) that has an address, is active, is of no order, and whose email is not queued
    /// already, nor sent unless `resend`; then marks those tickets queued for `jobID`. One
    /// statement each, whatever the number of tickets. Returns the tickets queued, in id order.
    func enqueueEmails(where filter: SQLQuery, jobID: String?, resend: Bool, now: Date) throws -> [Int64] {
        let millis = now.storageMillis
        let eligible = JobOperations.emailEligible(resend: resend)
        return try transaction {
            let ids = try execute("""
                INSERT INTO mail_outbox (pass_id, generation, attempts, next_attempt_at, first_enqueued_at, state)
                SELECT p.id, 1, 0, \(millis), \(millis), 'pending'
                FROM passes p LEFT JOIN ticket_emails t ON t.pass_id = p.id
                WHERE \(filter) AND p.attendee_email IS NOT NULL AND p.status = 'active' AND p.order_id IS NULL AND \(eligible)
                ORDER BY p.id
                \(Self.rearmEmail)
                RETURNING pass_id
                """).map { try $0.int64("pass_id") }.sorted()
            guard !ids.isEmpty else { return [] }
            try execute("""
                INSERT INTO ticket_emails (pass_id, event_id, job_id, state, queued_at, updated_at)
                SELECT p.id, p.event_id, \(jobID), 'queued', \(millis), \(millis) FROM passes p
                WHERE \(column("p.id", in: ids))
                ORDER BY p.id
                ON CONFLICT (pass_id) DO UPDATE SET job_id = excluded.job_id, state = 'queued', queued_at = excluded.queued_at,
                    updated_at = excluded.updated_at
                """)
            return ids
        }
    }

    /// What queueing does to an existing outbox row of the ticket (a failed one: a queued email is
    /// not queued again): re-armed with a new generation, as new and due now, its last answer
    /// forgotten; it sends the ticket's email or the order's, as the new row would.
    static let rearmEmail: SQLQuery = """
        ON CONFLICT (pass_id) DO UPDATE SET generation = mail_outbox.generation + 1, attempts = 0,
            next_attempt_at = excluded.next_attempt_at, first_enqueued_at = excluded.first_enqueued_at, state = 'pending',
            last_status = NULL, last_reason = NULL, order_id = excluded.order_id
        """

    /// Queues the email of each of these orders (the order's own send, or the email of the
    /// tickets an import added to it). An order whose email is already queued stays as it is (one
    /// message); one that was sent or failed is queued again. Orders without a buyer's address or
    /// without an active ticket are skipped. Returns the tickets the emails were queued for.
    @discardableResult
    public func enqueueOrderEmails(orderIDs: [String], now: Date) throws -> [Int64] {
        guard !orderIDs.isEmpty else { return [] }
        return try enqueueOrderEmails(where: textColumn("o.id", in: orderIDs), jobID: nil, resend: true, now: now)
    }

    /// Inserts (or re-arms a failed) outbox row, on the order's first ticket, for every order
    /// matching `filter` (a condition on `o` orders) that has a buyer's address and an active
    /// ticket and whose email is not queued already, nor sent unless `resend`; then marks those
    /// orders, and their active tickets, queued for `jobID`. Three statements whatever the number
    /// of orders. Returns the tickets queued, in id order.
    func enqueueOrderEmails(where filter: SQLQuery, jobID: String?, resend: Bool, now: Date) throws -> [Int64] {
        let millis = now.storageMillis
        let eligible: SQLQuery = resend ? "(o.email_state IS NULL OR o.email_state <> 'queued')" : "(o.email_state IS NULL OR o.email_state = 'failed')"
        return try transaction {
            // The order's first ticket is its lowest id, cancelled or not: no later ticket undercuts it.
            let orderIDs = try execute("""
                INSERT INTO mail_outbox (pass_id, order_id, generation, attempts, next_attempt_at, first_enqueued_at, state)
                SELECT lead.pass_id, lead.order_id, 1, 0, \(millis), \(millis), 'pending'
                FROM (SELECT min(p.id) AS pass_id, o.id AS order_id
                    FROM orders o JOIN passes p ON p.order_id = o.id
                    WHERE \(filter) AND o.buyer_email IS NOT NULL AND \(eligible)
                    GROUP BY o.id
                    HAVING sum(CASE WHEN p.status = 'active' THEN 1 ELSE 0 END) > 0) lead
                WHERE true
                ORDER BY lead.pass_id
                \(Self.rearmEmail)
                RETURNING order_id
                """).map { try $0.string("order_id") }.sorted()
            guard !orderIDs.isEmpty else { return [] }
            try execute("""
                UPDATE orders SET email_state = 'queued', email_job_id = \(jobID), email_queued_at = \(millis)
                WHERE \(textColumn("id", in: orderIDs))
                """)
            return try execute("""
                INSERT INTO ticket_emails (pass_id, event_id, job_id, state, queued_at, updated_at)
                SELECT p.id, p.event_id, \(jobID), 'queued', \(millis), \(millis) FROM passes p
                WHERE \(textColumn("p.order_id", in: orderIDs)) AND p.status = 'active'
                ORDER BY p.id
                ON CONFLICT (pass_id) DO UPDATE SET job_id = excluded.job_id, state = 'queued', queued_at = excluded.queued_at,
                    updated_at = excluded.updated_at
                RETURNING pass_id
                """).map { try $0.int64("pass_id") }.sorted()
        }
    }

    /// Claims up to `limit` due emails for `lease` (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so
    /// processes sharing the database never claim the same row), each with its ticket and event
    /// read in two more statements; an order's email also with the order and all its tickets (two
    /// more statements when the claim holds any).
    public func claimEmails(limit: Int, now: Date, lease: Duration) throws -> [MailOutboxRow] {
        var rows = try session.outbox.claimDue(in: .mail, returning: MailOutboxRow.columns, limit: limit, now: now, lease: lease)
            .map(MailOutboxRow.init(row:)).sorted { $0.id < $1.id }
        guard !rows.isEmpty else { return [] }
        let passIDs = column("id", in: rows.map(\.passID))
        let orderIDs = Array(Set(rows.compactMap(\.orderID))).sorted()
        let orders = try session.orders.orders(ids: orderIDs)
        var passes: [Int64: StoredPass] = [:]
        var orderTickets: [String: [StoredPass]] = [:]
        let ordered: SQLQuery = orderIDs.isEmpty ? "" : " OR \(textColumn("order_id", in: orderIDs))"
        for row in try execute("SELECT \(StoredPass.columns) FROM passes WHERE \(passIDs)\(ordered) ORDER BY id") {
            let pass = try StoredPass(row: row)
            passes[pass.id] = pass
            if let order = pass.orderID, orders[order] != nil { orderTickets[order, default: []].append(pass) }
        }
        var events: [String: Event] = [:]
        for row in try execute("SELECT \(EventOperations.eventColumns) FROM events WHERE id IN (SELECT event_id FROM passes WHERE \(passIDs))") {
            let event = try Event(row: row)
            events[event.id] = event
        }
        for index in rows.indices {
            rows[index].ticket = passes[rows[index].passID]
            rows[index].event = rows[index].ticket?.eventID.flatMap { events[$0] }
            if let order = rows[index].orderID {
                rows[index].order = orders[order]
                rows[index].orderTickets = orderTickets[order] ?? []
            }
        }
        return rows
    }

    /// Keeps the answers about claimed emails on their tickets, after the outbox rows were settled
    /// in the same transaction: sent (time, count), failed (time), or still queued when the row is
    /// pending again (retried, or queued once more while the message was in flight). The server's
    /// reply is kept. An order's answer is kept on the order and on every ticket of it that has an
    /// email state. At most five statements whatever the number of answers.
    public func recordEmails(_ results: [EmailResult], now: Date) throws {
        guard !results.isEmpty else { return }
        let millis = now.storageMillis
        func state(_ kind: EmailResult.Kind) -> String {
            switch kind {
            case .sent: "sent"
            case .retrying: "queued"
            case .failed: "failed"
            }
        }
        try transaction {
            let orderResults = results.filter { $0.orderID != nil }
            var orderTickets: [String: [Int64]] = [:]
            if !orderResults.isEmpty {
                let ids = orderResults.compactMap(\.orderID)
                try execute("SELECT id FROM orders WHERE \(textColumn("id", in: ids)) ORDER BY id\(unsafeRaw: forUpdate)")
                var orders = JSONRecords()
                for result in orderResults {
                    guard let id = result.orderID else { continue }
                    orders.append([
                        "id": .text(id), "lead": .integer(result.passID), "state": .text(state(result.kind)),
                        "sent": .integer(result.kind == .sent ? 1 : 0), "failed": .integer(result.kind == .failed ? 1 : 0),
                        "reply": result.reply.map { .text(String($0.prefix(500))) } ?? .null,
                    ])
                }
                let values = recordSet(orders, alias: "x", columns: [
                    ("id", "text"), ("lead", "bigint"), ("state", "text"), ("sent", "integer"), ("failed", "integer"), ("reply", "text"),
                ])
                try execute("""
                    UPDATE orders SET
                        email_state = CASE WHEN EXISTS (
                            SELECT 1 FROM mail_outbox m WHERE m.pass_id = x.lead AND m.state = 'pending') THEN 'queued'
                            ELSE x.state END,
                        email_sent_at = CASE WHEN x.sent = 1 THEN \(millis) ELSE orders.email_sent_at END,
                        email_failed_at = CASE WHEN x.failed = 1 THEN \(millis) ELSE orders.email_failed_at END,
                        email_reply = COALESCE(x.reply, orders.email_reply), email_sent_count = orders.email_sent_count + x.sent
                    FROM \(values)
                    WHERE orders.id = x.id
                    """)
                for row in try execute("""
                    SELECT p.id, p.order_id FROM passes p JOIN ticket_emails t ON t.pass_id = p.id
                    WHERE \(textColumn("p.order_id", in: ids))
                    """) {
                    orderTickets[try row.string("order_id"), default: []].append(try row.int64("id"))
                }
            }
            var records = JSONRecords()
            var ticketIDs: [Int64] = []
            for result in results {
                let tickets = result.orderID.map { orderTickets[$0] ?? [] } ?? [result.passID]
                for ticket in tickets {
                    ticketIDs.append(ticket)
                    records.append([
                        "id": .integer(ticket), "lead": .integer(result.passID), "state": .text(state(result.kind)),
                        "sent": .integer(result.kind == .sent ? 1 : 0), "failed": .integer(result.kind == .failed ? 1 : 0),
                        "reply": result.reply.map { .text(String($0.prefix(500))) } ?? .null,
                    ])
                }
            }
            guard !ticketIDs.isEmpty else { return }
            if dialect == .postgres {
                try execute("""
                    SELECT pass_id FROM ticket_emails WHERE \(column("pass_id", in: ticketIDs))
                    ORDER BY pass_id FOR UPDATE
                    """)
            }
            let values = recordSet(records, alias: "x", columns: [
                ("id", "bigint"), ("lead", "bigint"), ("state", "text"), ("sent", "integer"), ("failed", "integer"), ("reply", "text"),
            ])
            try execute("""
                UPDATE ticket_emails SET
                    state = CASE WHEN EXISTS (
                        SELECT 1 FROM mail_outbox m WHERE m.pass_id = x.lead AND m.state = 'pending') THEN 'queued'
                        ELSE x.state END,
                    sent_at = CASE WHEN x.sent = 1 THEN \(millis) ELSE ticket_emails.sent_at END,
                    failed_at = CASE WHEN x.failed = 1 THEN \(millis) ELSE ticket_emails.failed_at END,
                    reply = COALESCE(x.reply, ticket_emails.reply), sent_count = ticket_emails.sent_count + x.sent,
                    updated_at = \(millis)
                FROM \(values)
                WHERE ticket_emails.pass_id = x.id
                """)
            // An email given up on (and not queued again meanwhile) is an `email.failed` webhook,
            // with the server's last reply, when an endpoint wants it.
            if results.contains(where: { $0.kind == .failed }) {
                let reply = dialect.pick(postgres: "CAST(json_build_object('reply', x.reply) AS TEXT)", sqlite: "json_object('reply', x.reply)")
                try session.webhooks.enqueueTicketWebhooks(
                    .emailFailed, from: "\(values) JOIN passes p ON p.id = x.id",
                    where: "x.failed = 1 AND NOT EXISTS (SELECT 1 FROM mail_outbox m WHERE m.pass_id = p.id AND m.state = 'pending')",
                    detail: SQLQuery(unsafeRaw: reply), now: now
                )
            }
        }
    }

    /// What became of these tickets' emails (a ticket never emailed is absent). One statement.
    public func ticketEmails(passIDs: [Int64]) throws -> [Int64: TicketEmail] {
        guard !passIDs.isEmpty else { return [:] }
        var emails: [Int64: TicketEmail] = [:]
        for row in try execute("SELECT \(TicketEmail.columns) FROM ticket_emails WHERE \(column("pass_id", in: passIDs))") {
            let email = try TicketEmail(row: row)
            emails[email.passID] = email
        }
        return emails
    }

    /// The event's tickets' emails by state (an index range scan).
    public func emailCounts(eventID: String) throws -> EmailCounts {
        try emailCounts(eventIDs: [eventID])[eventID] ?? EmailCounts()
    }

    /// The emails of several events by state (an event without any is absent), from the events'
    /// tallies (migration 13 keeps them by trigger): a few rows whatever the events' sizes.
    public func emailCounts(eventIDs: [String]) throws -> [String: EmailCounts] {
        try session.reach.eventTotals(eventIDs: eventIDs).compactMapValues { tally in
            let counts = EmailCounts(queued: Int(tally.emailsQueued), sent: Int(tally.emailsSent), failed: Int(tally.emailsFailed))
            return counts == EmailCounts() ? nil : counts
        }
    }

    /// The emails an event send queued (those not queued again since by another send), by state.
    public func emailCounts(jobID: String) throws -> EmailCounts {
        var counts = EmailCounts()
        for row in try execute("SELECT state, count(*) AS n FROM ticket_emails WHERE job_id = \(jobID) GROUP BY state") {
            counts.add(try row.string("state"), try row.int("n"))
        }
        return counts
    }

    /// Emails waiting in the outbox (due or backing off, claimed included), emails given up on
    /// there, and when the oldest waiting one was first queued. One statement.
    public func mailOutboxCounts() throws -> (pending: Int, failed: Int, oldestPending: Date?) {
        guard let row = try first("""
            SELECT count(*) FILTER (WHERE state = 'pending') AS pending, count(*) FILTER (WHERE state = 'failed') AS failed,
                min(first_enqueued_at) FILTER (WHERE state = 'pending') AS oldest
            FROM mail_outbox
            """)
        else { return (0, 0, nil) }
        return (try row.int("pending"), try row.int("failed"), try row.optionalDate("oldest"))
    }
}

extension EmailCounts {
    mutating func add(_ state: String, _ count: Int) {
        switch TicketEmail.State(rawValue: state) {
        case .queued: queued += count
        case .sent: sent += count
        case .failed: failed += count
        case nil: break
        }
    }
}

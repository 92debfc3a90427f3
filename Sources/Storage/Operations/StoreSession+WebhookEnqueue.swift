import Foundation

// Webhook events are recorded by the operations that make the changes, in their transactions
// (migration 23 explains the tables). Each statement carries the condition that some enabled
// endpoint subscribes to its type (`webhookWanted`: one lookup in `webhook_subscriptions`,
// checked once per statement), so with no subscriber it writes nothing. The statements are
// deferred (`executeDeferred`) or joined to the change's own statement, so on PostgreSQL a change
// costs no round trip more for its webhooks, wanted or not.
extension WebhookOperations {
    /// The condition every enqueueing statement carries: an enabled endpoint wants `type`.
    func webhookWanted(_ type: WebhookEventType) -> SQLQuery {
        "EXISTS (SELECT 1 FROM webhook_subscriptions WHERE event_type = \(type.rawValue))"
    }

    /// A new public id (`evt_` and 32 random hex digits), made by the database for each row.
    private var webhookPublicID: SQLQuery {
        SQLQuery(unsafeRaw: dialect.pick(
            postgres: "'evt_' || replace(CAST(gen_random_uuid() AS TEXT), '-', '')", sqlite: "'evt_' || lower(hex(randomblob(16)))"
        ))
    }

    /// The statement recording `type` for every ticket `p` of `source` that matches `filter`,
    /// with the ticket and its event (`e`, joined here) as they are in the statement's view.
    /// `detail` is the JSON detail of each (NULL: none).
    func ticketWebhookStatement(
        _ type: WebhookEventType, from source: SQLQuery = "passes p", where filter: SQLQuery, detail: SQLQuery = "NULL", now: Date
    ) -> SQLQuery {
        """
        INSERT INTO webhook_events (public_id, event_type, created_at, pass_id, event_id, ticket, event, detail)
        SELECT \(webhookPublicID), CAST(\(type.rawValue) AS TEXT), CAST(\(now.storageMillis) AS BIGINT), p.id, p.event_id,
            \(WebhookSnapshot.expression("p", columns: WebhookSnapshot.ticketColumns, dialect: dialect)),
            \(WebhookSnapshot.expression("e", columns: WebhookSnapshot.eventColumns, dialect: dialect)), \(detail)
        FROM \(source) LEFT JOIN events e ON e.id = p.event_id
        WHERE \(filter) AND \(webhookWanted(type))
        ORDER BY p.id
        """
    }

    /// Records `type` for the tickets `p` of `source` matching `filter`, deferred.
    func enqueueTicketWebhooks(
        _ type: WebhookEventType, from source: SQLQuery = "passes p", where filter: SQLQuery, detail: SQLQuery = "NULL", now: Date
    ) throws {
        try executeDeferred(ticketWebhookStatement(type, from: source, where: filter, detail: detail, now: now))
    }

    /// `detail` as the statement's value.
    static func detailParameter(_ detail: WebhookDetail?) -> SQLQuery {
        detail.map { "CAST(\($0.json) AS TEXT)" } ?? "NULL"
    }

    /// Records `type` for an event, with the event as it is in the statement's view, deferred.
    func enqueueEventWebhook(_ type: WebhookEventType, eventID: String, now: Date) throws {
        try executeDeferred("""
            INSERT INTO webhook_events (public_id, event_type, created_at, pass_id, event_id, ticket, event, detail)
            SELECT \(webhookPublicID), CAST(\(type.rawValue) AS TEXT), CAST(\(now.storageMillis) AS BIGINT), NULL, e.id, NULL,
                \(WebhookSnapshot.expression("e", columns: WebhookSnapshot.eventColumns, dialect: dialect)), NULL
            FROM events e
            WHERE e.id = \(eventID) AND \(webhookWanted(type))
            """)
    }

    /// The condition that no device holds the ticket `p` (its registrations as the statement sees them).
    func noRegistration(of pass: String = "p", except device: String? = nil) -> SQLQuery {
        let other: SQLQuery = device.map { " AND r.device_library_identifier <> \($0)" } ?? ""
        return """
            NOT EXISTS (SELECT 1 FROM registrations r
                WHERE r.pass_type_identifier = \(unsafeRaw: pass).pass_type_identifier AND r.serial_number = \(unsafeRaw: pass).serial_number\(other))
            """
    }
}

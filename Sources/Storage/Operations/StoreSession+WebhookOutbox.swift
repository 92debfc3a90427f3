public import Foundation

// The webhook outbox (migration 23): claiming deliveries with what they send, recording each
// attempt beside the settlement, the endpoints' delivery logs, redelivery, counts and retention.
extension WebhookOperations {
    /// The enabled endpoints' ids, in id order.
    public func enabledWebhookEndpointIDs() throws -> [String] {
        try execute("SELECT id FROM webhook_endpoints WHERE enabled = 1 ORDER BY id").map { try $0.string("id") }
    }

    /// Claims due deliveries for `lease`, at most `limit` of each endpoint in `budgets` (in that
    /// order; each endpoint's oldest due first, one indexed statement per endpoint), each with its
    /// webhook event and endpoint (two statements more whatever the number). So one endpoint's
    /// backlog never takes every row in flight.
    public func claimWebhooks(budgets: [(endpointID: String, limit: Int)], now: Date, lease: Duration) throws -> [WebhookDeliveryRow] {
        var rows: [WebhookDeliveryRow] = []
        for budget in budgets where budget.limit > 0 {
            rows += try session.outbox.claimDue(
                in: .webhooks, only: "endpoint_id = \(budget.endpointID)", returning: WebhookDeliveryRow.columns, limit: budget.limit, now: now, lease: lease
            ).map(WebhookDeliveryRow.init(row:))
        }
        rows.sort(by: WebhookDeliveryRow.locksBefore)
        guard !rows.isEmpty else { return [] }
        var events: [Int64: WebhookEventRecord] = [:]
        for row in try execute("""
            SELECT \(WebhookEventRecord.columns) FROM webhook_events WHERE \(column("id", in: Set(rows.map(\.webhookEventID)).sorted()))
            """) {
            let record = try WebhookEventRecord(row: row)
            events[record.id] = record
        }
        var endpoints: [String: WebhookEndpoint] = [:]
        for row in try execute("""
            SELECT \(WebhookEndpoint.columns) FROM webhook_endpoints WHERE \(textColumn("id", in: Set(rows.map(\.endpointID)).sorted()))
            """) {
            let endpoint = try WebhookEndpoint(row: row)
            endpoints[endpoint.id] = endpoint
        }
        for index in rows.indices {
            rows[index].event = events[rows[index].webhookEventID]
            rows[index].endpoint = endpoints[rows[index].endpointID]
        }
        return rows
    }

    /// Keeps what each attempt was, after the rows were settled in the same transaction (their
    /// rows locked): its time, latency and, when answered 2xx, its status; holds the rows still
    /// pending whose endpoint was disabled meanwhile; and keeps each endpoint's health (the last
    /// 2xx, or since when every attempt failed). Returns the enabled endpoints failing since
    /// `failingBefore` or earlier. Two statements (three for several endpoints on PostgreSQL)
    /// whatever the number of attempts.
    public func recordWebhookAttempts(_ attempts: [WebhookAttempt], failingBefore: Date, now: Date) throws -> [FailingWebhookEndpoint] {
        guard !attempts.isEmpty else { return [] }
        let millis = now.storageMillis
        return try transaction {
            var records = JSONRecords()
            var health: [String: (succeeded: Bool, failure: String?)] = [:]
            for attempt in attempts {
                let attempted: Bool, succeeded: Bool
                switch attempt.outcome {
                case .succeeded:
                    (attempted, succeeded) = (true, true)
                    health[attempt.endpointID] = (true, nil)
                case .failed(let reason):
                    (attempted, succeeded) = (true, false)
                    if health[attempt.endpointID]?.succeeded != true { health[attempt.endpointID] = (false, String(reason.prefix(200))) }
                case .notAttempted:
                    (attempted, succeeded) = (false, false)
                }
                records.append([
                    "id": .integer(attempt.deliveryID), "a": .integer(attempted ? 1 : 0), "ok": .integer(succeeded ? 1 : 0),
                    "s": .integer(Int64(attempt.status)), "l": .integer(Int64(attempt.latencyMilliseconds)),
                ])
            }
            let values = recordSet(records, alias: "x", columns: [("id", "bigint"), ("a", "integer"), ("ok", "integer"), ("s", "integer"), ("l", "integer")])
            // A row still pending whose endpoint was disabled meanwhile is held.
            let disabled: SQLQuery = "webhook_deliveries.state = 'pending' AND webhook_deliveries.endpoint_id IN (SELECT id FROM webhook_endpoints WHERE enabled = 0)"
            try execute("""
                UPDATE webhook_deliveries SET
                    last_attempt_at = CASE WHEN x.a = 1 THEN \(millis) ELSE webhook_deliveries.last_attempt_at END,
                    latency_ms = CASE WHEN x.a = 1 THEN x.l ELSE webhook_deliveries.latency_ms END,
                    last_status = CASE WHEN x.ok = 1 THEN x.s ELSE webhook_deliveries.last_status END,
                    last_reason = CASE WHEN x.ok = 1 THEN NULL ELSE webhook_deliveries.last_reason END,
                    claimed_until = CASE WHEN \(disabled) THEN NULL ELSE webhook_deliveries.claimed_until END,
                    state = CASE WHEN \(disabled) THEN 'held' ELSE webhook_deliveries.state END
                FROM \(values)
                WHERE webhook_deliveries.id = x.id
                """)
            guard !health.isEmpty else { return [] }
            let endpointIDs = health.keys.sorted()
            // Two settlers updating the same endpoints lock them in one order (one row needs no order).
            if dialect == .postgres && endpointIDs.count > 1 {
                try execute("SELECT id FROM webhook_endpoints WHERE \(textColumn("id", in: endpointIDs)) ORDER BY id FOR NO KEY UPDATE")
            }
            var states = JSONRecords()
            for id in endpointIDs {
                guard let entry = health[id] else { continue }
                states.append(["e": .text(id), "ok": .integer(entry.succeeded ? 1 : 0), "f": entry.failure.map { .text($0) } ?? .null])
            }
            let endpoints = recordSet(states, alias: "x", columns: [("e", "text"), ("ok", "integer"), ("f", "text")])
            let failing = try execute("""
                UPDATE webhook_endpoints SET
                    last_success_at = CASE WHEN x.ok = 1 THEN \(millis) ELSE webhook_endpoints.last_success_at END,
                    failing_since = CASE WHEN x.ok = 1 THEN NULL ELSE COALESCE(webhook_endpoints.failing_since, \(millis)) END,
                    last_failure = CASE WHEN x.ok = 1 THEN NULL ELSE x.f END
                FROM \(endpoints)
                WHERE webhook_endpoints.id = x.e
                RETURNING id, enabled, failing_since, last_failure
                """)
            return try failing.compactMap { row in
                guard try row.int("enabled") == 1, let since = try row.optionalDate("failing_since"), since <= failingBefore else { return nil }
                return FailingWebhookEndpoint(id: try row.string("id"), failingSince: since, lastFailure: try row.optionalString("last_failure"))
            }
        }
    }

    /// One page of an endpoint's deliveries, newest first, before delivery id `before` (nil: from
    /// the newest).
    public func webhookDeliveries(endpointID: String, before: Int64? = nil, limit: Int) throws -> [WebhookDelivery] {
        let older: SQLQuery = before.map { " AND d.id < \($0)" } ?? ""
        return try execute("""
            SELECT \(WebhookDelivery.columns) FROM webhook_deliveries d JOIN webhook_events w ON w.id = d.webhook_event_id
            WHERE d.endpoint_id = \(endpointID)\(older)
            ORDER BY d.id DESC LIMIT \(limit)
            """).map(WebhookDelivery.init(row:))
    }

    /// One delivery of an endpoint, nil when the endpoint has no such delivery.
    public func webhookDelivery(id: Int64, endpointID: String) throws -> WebhookDelivery? {
        try first("""
            SELECT \(WebhookDelivery.columns) FROM webhook_deliveries d JOIN webhook_events w ON w.id = d.webhook_event_id
            WHERE d.id = \(id) AND d.endpoint_id = \(endpointID)
            """).map(WebhookDelivery.init(row:))
    }

    /// Queues the webhook event of one of an endpoint's deliveries to it again, due now, as a
    /// delivery of its own (the same event: the same id and body). Nil when the endpoint has no
    /// such delivery.
    public func redeliverWebhook(deliveryID: Int64, endpointID: String, now: Date) throws -> WebhookDelivery? {
        try transaction {
            let millis = now.storageMillis
            guard let row = try first("""
                INSERT INTO webhook_deliveries (endpoint_id, webhook_event_id, next_attempt_at, first_enqueued_at)
                SELECT endpoint_id, webhook_event_id, \(millis), \(millis) FROM webhook_deliveries
                WHERE id = \(deliveryID) AND endpoint_id = \(endpointID)
                RETURNING id
                """)
            else { return nil }
            return try webhookDelivery(id: try row.int64("id"), endpointID: endpointID)
        }
    }

    /// The deliveries by state and the endpoints by whether they are enabled.
    public func webhookCounts() throws -> WebhookCounts {
        var counts = WebhookCounts()
        if let row = try first("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'pending'") { counts.pending = try row.int("n") }
        for row in try execute("SELECT state, count(*) AS n FROM webhook_deliveries WHERE state IN ('failed', 'held') GROUP BY state") {
            let count = try row.int("n")
            if try row.string("state") == "failed" { counts.failed = count } else { counts.held = count }
        }
        for row in try execute("SELECT enabled, count(*) AS n FROM webhook_endpoints GROUP BY enabled") {
            if try row.int("enabled") == 1 { counts.enabledEndpoints = try row.int("n") } else { counts.disabledEndpoints = try row.int("n") }
        }
        return counts
    }

    /// Whether any delivery waits to be sent (due or backing off). One indexed lookup.
    public func hasPendingWebhooks() throws -> Bool {
        try first("SELECT 1 AS one FROM webhook_deliveries WHERE state = 'pending' LIMIT 1") != nil
    }

    /// Deletes up to `limit` deliveries delivered or failed that were queued before `cutoff`;
    /// returns how many.
    public func deleteSettledWebhookDeliveries(before cutoff: Date, limit: Int) throws -> Int {
        try execute("""
            DELETE FROM webhook_deliveries WHERE id IN (
                SELECT id FROM webhook_deliveries WHERE state IN ('delivered', 'failed') AND first_enqueued_at < \(cutoff.storageMillis)
                ORDER BY first_enqueued_at LIMIT \(limit))
            RETURNING id
            """).count
    }

    /// Deletes up to `limit` webhook events recorded before `cutoff` that no delivery refers to any
    /// more; returns how many.
    public func deleteUnreferencedWebhookEvents(before cutoff: Date, limit: Int) throws -> Int {
        try execute("""
            DELETE FROM webhook_events WHERE id IN (
                SELECT w.id FROM webhook_events w
                WHERE w.created_at < \(cutoff.storageMillis) AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_event_id = w.id)
                ORDER BY w.created_at LIMIT \(limit))
            RETURNING id
            """).count
    }
}

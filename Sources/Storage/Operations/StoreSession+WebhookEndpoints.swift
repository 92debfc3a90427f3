public import Foundation

// Webhook endpoints (migration 23). An enabled endpoint has one `webhook_subscriptions` row per
// type it wants, which is what the enqueueing statements ask; disabling deletes them, so nothing
// is recorded for a disabled endpoint, and its waiting deliveries are held until it is enabled.
//
// Lock order, as the webhook dispatcher takes them when it records answers: an endpoint's
// deliveries in id order, then the endpoint row. Enqueueing inserts deliveries (a foreign-key
// share lock on the endpoint) and locks nothing else of these.
extension WebhookOperations {
    /// Creates an endpoint, enabled, subscribed to its types.
    public func createWebhookEndpoint(_ new: NewWebhookEndpoint, now: Date) throws -> WebhookEndpoint {
        try transaction {
            let millis = now.storageMillis
            guard let row = try first("""
                INSERT INTO webhook_endpoints (id, url, description, event_types, secret_nonce, enabled, created_at, updated_at)
                VALUES (\(RandomIdentifier.make()), \(new.url), \(new.description), \(WebhookEndpoint.text(new.eventTypes)), \(new.secretNonce),
                    1, \(millis), \(millis))
                RETURNING \(WebhookEndpoint.columns)
                """)
            else { throw StorageError(.backend, "insert returned no row") }
            let endpoint = try WebhookEndpoint(row: row)
            try subscribe(endpoint)
            return endpoint
        }
    }

    /// Every endpoint, newest first.
    public func webhookEndpoints() throws -> [WebhookEndpoint] {
        try execute("SELECT \(WebhookEndpoint.columns) FROM webhook_endpoints ORDER BY created_at DESC, id").map(WebhookEndpoint.init(row:))
    }

    public func webhookEndpoint(id: String) throws -> WebhookEndpoint? {
        try first("SELECT \(WebhookEndpoint.columns) FROM webhook_endpoints WHERE id = \(id)").map(WebhookEndpoint.init(row:))
    }

    /// Changes an endpoint's URL, description or types (an enabled one's subscriptions follow);
    /// nil when there is no such endpoint.
    public func updateWebhookEndpoint(id: String, change: WebhookEndpointChange, now: Date) throws -> WebhookEndpoint? {
        try transaction {
            guard let current = try first("SELECT \(WebhookEndpoint.columns) FROM webhook_endpoints WHERE id = \(id)\(unsafeRaw: forUpdate)")
                .map(WebhookEndpoint.init(row:))
            else { return nil }
            let types = change.eventTypes ?? current.eventTypes
            guard let row = try first("""
                UPDATE webhook_endpoints SET url = \(change.url ?? current.url), description = \(change.description ?? current.description),
                    event_types = \(WebhookEndpoint.text(types)), updated_at = \(now.storageMillis)
                WHERE id = \(id)
                RETURNING \(WebhookEndpoint.columns)
                """)
            else { return nil }
            let updated = try WebhookEndpoint(row: row)
            if types != current.eventTypes {
                try execute("DELETE FROM webhook_subscriptions WHERE endpoint_id = \(id)")
                try subscribe(updated)
            }
            return updated
        }
    }

    /// Enables an endpoint (its held deliveries are due now, its health starts afresh) or
    /// disables it with `reason` (its waiting deliveries are held; those on their way at this
    /// moment finish). Nil when there is no such endpoint; an endpoint already in that state
    /// is returned as it is.
    public func setWebhookEndpoint(id: String, enabled: Bool, reason: String?, now: Date) throws -> WebhookEndpoint? {
        try transaction {
            let millis = now.storageMillis
            if enabled {
                try execute("SELECT id FROM webhook_deliveries WHERE endpoint_id = \(id) AND state = 'held' ORDER BY id\(unsafeRaw: forUpdate)")
                guard let row = try first("""
                    UPDATE webhook_endpoints SET enabled = 1, disabled_at = NULL, disabled_reason = NULL, failing_since = NULL,
                        last_failure = NULL, updated_at = \(millis)
                    WHERE id = \(id) AND enabled = 0
                    RETURNING \(WebhookEndpoint.columns)
                    """)
                else { return try webhookEndpoint(id: id) }
                let endpoint = try WebhookEndpoint(row: row)
                try execute("""
                    UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = \(millis), first_enqueued_at = \(millis),
                        claimed_until = NULL
                    WHERE endpoint_id = \(id) AND state = 'held'
                    """)
                try subscribe(endpoint)
                return endpoint
            }
            try execute("""
                SELECT id FROM webhook_deliveries WHERE endpoint_id = \(id) AND state = 'pending' ORDER BY id\(unsafeRaw: forUpdate)
                """)
            guard let row = try first("""
                UPDATE webhook_endpoints SET enabled = 0, disabled_at = \(millis), disabled_reason = \(reason), updated_at = \(millis)
                WHERE id = \(id) AND enabled = 1
                RETURNING \(WebhookEndpoint.columns)
                """)
            else { return try webhookEndpoint(id: id) }
            // Rows claimed now are on their way: they are held when their answer is recorded, if retried.
            try execute("""
                UPDATE webhook_deliveries SET state = 'held'
                WHERE endpoint_id = \(id) AND state = 'pending' AND (claimed_until IS NULL OR claimed_until <= \(millis))
                """)
            try execute("DELETE FROM webhook_subscriptions WHERE endpoint_id = \(id)")
            return try WebhookEndpoint(row: row)
        }
    }

    /// Gives an endpoint a new secret nonce (a new signing secret from now on); nil when there is none.
    public func rotateWebhookSecret(id: String, nonce: String, now: Date) throws -> WebhookEndpoint? {
        try first("""
            UPDATE webhook_endpoints SET secret_nonce = \(nonce), updated_at = \(now.storageMillis) WHERE id = \(id)
            RETURNING \(WebhookEndpoint.columns)
            """).map(WebhookEndpoint.init(row:))
    }

    /// Deletes an endpoint with its subscriptions and deliveries; false when there was none.
    @discardableResult
    public func deleteWebhookEndpoint(id: String) throws -> Bool {
        try transaction {
            try execute("SELECT id FROM webhook_deliveries WHERE endpoint_id = \(id) AND state = 'pending' ORDER BY id\(unsafeRaw: forUpdate)")
            return try !execute("DELETE FROM webhook_endpoints WHERE id = \(id) RETURNING id").isEmpty
        }
    }

    /// One subscription row per type of an enabled endpoint.
    private func subscribe(_ endpoint: WebhookEndpoint) throws {
        guard endpoint.enabled, !endpoint.eventTypes.isEmpty else { return }
        let rows = endpoint.eventTypes.sorted().map { type -> SQLQuery in "(\(type.rawValue), \(endpoint.id))" }
        try execute("INSERT INTO webhook_subscriptions (event_type, endpoint_id) VALUES \(SQLQuery.joined(rows, separator: ", "))")
    }
}

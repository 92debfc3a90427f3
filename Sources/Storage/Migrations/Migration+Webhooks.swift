// Version 23: signed webhooks to the organizers' own systems.
//
// - `webhook_endpoints`: where to send (URL), what (`event_types`, comma-separated), the random
//   `secret_nonce` the signing secret is derived from with TOKEN_SECRET (the secret itself is never
//   stored), whether it is enabled (with when and why it was disabled), and its health: the last
//   2xx and, while every attempt since failed, when the failing began.
// - `webhook_subscriptions`: one row per (event type, enabled endpoint). The operations that
//   cause webhooks ask it whether anyone wants their type (one index lookup in the statement they
//   run anyway), so with no subscriber nothing is written; a disabled endpoint has no rows here.
// - `webhook_events`: one row per thing that happened and was wanted: its public id (`evt_` and
//   32 hex digits, the receivers' de-duplication key), type, time, and the ticket and event as
//   they were then (their columns as JSON, written by the statement that made the change), plus a
//   small `detail` (a check-in's gate, an email's reply). The body sent is made from this row, so
//   every delivery and redelivery of it carries the same id and body.
// - `webhook_deliveries`: the outbox, one row per (endpoint, webhook event), written by a trigger
//   on `webhook_events` for every endpoint subscribed at that moment (statement-level with a
//   transition table on PostgreSQL, so an import of thousands of tickets fans out in one insert).
//   The bookkeeping columns are every outbox's (see `OutboxTable`); a delivered row stays as
//   `delivered` (the endpoint's delivery log) with its last attempt's time, status and latency,
//   and the rows of a disabled endpoint wait as `held` until it is enabled again.

extension Migration {
    static let webhooks = Migration(version: 23, name: "webhooks: endpoints, subscriptions, events as they were, deliveries") { db in
        let fanOut = "INSERT INTO webhook_deliveries (endpoint_id, webhook_event_id, next_attempt_at, first_enqueued_at)"
        let trigger = db.pick(
            postgres: """
                CREATE FUNCTION webhook_events_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    \(fanOut)
                    SELECT s.endpoint_id, n.id, n.created_at, n.created_at
                    FROM new_events n JOIN webhook_subscriptions s ON s.event_type = n.event_type
                    ORDER BY n.id, s.endpoint_id;
                    RETURN NULL;
                END $$;
                CREATE TRIGGER webhook_events_fan_out AFTER INSERT ON webhook_events REFERENCING NEW TABLE AS new_events
                    FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_fan_out();
                """,
            sqlite: """
                CREATE TRIGGER webhook_events_fan_out AFTER INSERT ON webhook_events BEGIN
                    \(fanOut)
                    SELECT s.endpoint_id, NEW.id, NEW.created_at, NEW.created_at FROM webhook_subscriptions s
                    WHERE s.event_type = NEW.event_type ORDER BY s.endpoint_id;
                END;
                """
        )
        return """
            CREATE TABLE webhook_endpoints (
                id TEXT PRIMARY KEY, url TEXT NOT NULL, description TEXT NOT NULL DEFAULT '', event_types TEXT NOT NULL,
                secret_nonce TEXT NOT NULL, enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
                disabled_at \(db.bigint), disabled_reason TEXT, created_at \(db.bigint) NOT NULL, updated_at \(db.bigint) NOT NULL,
                last_success_at \(db.bigint), failing_since \(db.bigint), last_failure TEXT);
            CREATE TABLE webhook_subscriptions (
                event_type TEXT NOT NULL, endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
                PRIMARY KEY (event_type, endpoint_id));
            CREATE INDEX webhook_subscriptions_endpoint ON webhook_subscriptions (endpoint_id);
            CREATE TABLE webhook_events (
                id \(db.serialKey), public_id TEXT NOT NULL, event_type TEXT NOT NULL, created_at \(db.bigint) NOT NULL,
                pass_id \(db.bigint), event_id TEXT, ticket TEXT, event TEXT, detail TEXT);
            CREATE INDEX webhook_events_event ON webhook_events (event_id);
            CREATE INDEX webhook_events_created ON webhook_events (created_at);
            CREATE TABLE webhook_deliveries (
                id \(db.serialKey), endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
                webhook_event_id \(db.bigint) NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
                generation \(db.bigint) NOT NULL DEFAULT 1, attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at \(db.bigint) NOT NULL, claimed_until \(db.bigint), first_enqueued_at \(db.bigint) NOT NULL,
                last_status INTEGER, last_reason TEXT, last_attempt_at \(db.bigint), latency_ms INTEGER,
                state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed', 'delivered', 'held')));
            CREATE INDEX webhook_deliveries_ready ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE state = 'pending';
            CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);
            CREATE INDEX webhook_deliveries_event ON webhook_deliveries (webhook_event_id);
            CREATE INDEX webhook_deliveries_state ON webhook_deliveries (state, first_enqueued_at) WHERE state <> 'pending';
            \(trigger)
            """
    }
}

// Version 25: orders, tickets issued together for one buyer.
//
// - `orders`: one row per order of an event. `id` is the server's random key, the order's id in
//   the API (the order page's token is derived from it; only `token_hash` is stored, like a
//   download link's); `external_id` the organizer's own id for it, unique within the event (NULLs
//   never collide); the buyer's email, name and email language; and what became of the order's
//   email (`email_*`, the states of `ticket_emails`). Locked after `mail_outbox` rows and before
//   `ticket_emails` rows, by `id`, in every transaction that writes several.
// - `passes.order_id`: the order a ticket was issued in (NULL: issued on its own). It never
//   changes; indexed with the pass id, so an order's tickets, and its first one, are an index range.
// - `mail_outbox.order_id`: the row sends the order's email (set) or its ticket's (NULL). An
//   order's row belongs to its first ticket (`pass_id`, the order's lowest pass id, which no later
//   ticket of the order can undercut), so the outbox keeps one row per key and its lock order.

extension Migration {
    static let orders = Migration(version: 25, name: "orders: tickets issued together for one buyer") { db in
        """
        CREATE TABLE orders (
            id TEXT PRIMARY KEY,
            event_id TEXT NOT NULL REFERENCES events (id),
            external_id TEXT,
            buyer_email TEXT, buyer_name TEXT, language TEXT,
            token_hash \(db.bytes) NOT NULL UNIQUE,
            created_at \(db.bigint) NOT NULL,
            email_state TEXT CHECK (email_state IN ('queued', 'sent', 'failed')),
            email_job_id TEXT, email_queued_at \(db.bigint), email_sent_at \(db.bigint), email_failed_at \(db.bigint),
            email_reply TEXT, email_sent_count INTEGER NOT NULL DEFAULT 0,
            UNIQUE (event_id, external_id)
        );
        CREATE INDEX orders_event ON orders (event_id, created_at, id);
        ALTER TABLE passes ADD COLUMN order_id TEXT REFERENCES orders (id);
        CREATE INDEX passes_order ON passes (order_id, id);
        ALTER TABLE mail_outbox ADD COLUMN order_id TEXT;
        """
    }
}

// Version 22: what Google Wallet is to be told, and what it was told.
//
// - `google_outbox`: the durable outbox of Google Wallet changes, one row per thing to bring up to
//   date at Google: `target` is `c:<event id>` for an event's class or `o:<pass id, 20 digits>` for
//   a ticket's object, so that byte order is the lock order and a class row locks before its
//   objects'. A row says only "bring this up to date": the class or object is written from the
//   event or ticket as it is when the row is claimed. `notify` asks for a notifying update (kept
//   when a silent change coalesces into the row). The bookkeeping columns are every outbox's (see
//   `OutboxTable`).
// - `google_objects`: what Google holds of each ticket: whether the object was inserted, when it
//   was last brought up to date, the state it was given, the reason of a refusal, and the times of
//   its notifying updates of the last 24 hours (Google allows three). The rows go with the ticket.
// - `google_classes`: the same for an event's class.

extension Migration {
    static let googleOutbox = Migration(version: 22, name: "google wallet: outbox, objects and classes as Google holds them") { db in
        """
        CREATE TABLE google_outbox (
            id \(db.serialKey), target TEXT NOT NULL UNIQUE, notify INTEGER NOT NULL DEFAULT 0,
            generation \(db.bigint) NOT NULL DEFAULT 1, attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at \(db.bigint) NOT NULL, claimed_until \(db.bigint), first_enqueued_at \(db.bigint) NOT NULL,
            last_status INTEGER, last_reason TEXT,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')));
        CREATE INDEX google_outbox_due ON google_outbox (state, next_attempt_at);
        CREATE TABLE google_objects (
            pass_id \(db.bigint) PRIMARY KEY REFERENCES passes(id) ON DELETE CASCADE,
            inserted_at \(db.bigint), synced_at \(db.bigint), state TEXT, failed_reason TEXT,
            notified_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE google_classes (
            event_id TEXT PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
            inserted_at \(db.bigint), synced_at \(db.bigint), failed_reason TEXT,
            notified_at TEXT NOT NULL DEFAULT '');
        """
    }
}

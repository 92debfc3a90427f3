// Version 24: announcements and scheduled work.
//
// - `events.announcement_id`, `announcement`, `announcement_notify`: the announcement the event's
//   passes carry now (its id, its text, and whether its back field alerts the lock screen), or
//   NULL. Passes are rendered from the event row, so a change of it is an event change like any
//   other: a new event revision and a job that bumps the passes.
// - `announcements`: every announcement sent to an event's passes, with the job that carried it
//   (its reach) and, once withdrawn, when and the job that took it off again.
// - `scheduled_actions`: work due at a time (an announcement to send, an event edit to apply),
//   with its payload (the typed draft it was saved from, as JSON) and its state: pending until a
//   server applies it, then applied, failed (with the reason) or cancelled. Claimed with
//   `FOR UPDATE SKIP LOCKED` inside the transaction that applies it, so each row is applied once
//   however many servers run. The partial index holds only what is still pending.
// - `google_classes.announcement_id`: the announcement last added to the event's Google Wallet
//   class with Google's message call, so a class written again does not add it twice.

extension Migration {
    static let scheduling = Migration(version: 24, name: "announcements and scheduled actions") { db in
        """
        ALTER TABLE events ADD COLUMN announcement_id TEXT;
        ALTER TABLE events ADD COLUMN announcement TEXT;
        ALTER TABLE events ADD COLUMN announcement_notify INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE announcements (
            id TEXT PRIMARY KEY,
            event_id TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            message TEXT NOT NULL,
            notify INTEGER NOT NULL,
            sent_at \(db.bigint) NOT NULL,
            job_id TEXT,
            withdrawn_at \(db.bigint),
            withdraw_job_id TEXT
        );
        CREATE INDEX announcements_event ON announcements (event_id, sent_at);
        CREATE TABLE scheduled_actions (
            id TEXT PRIMARY KEY,
            event_id TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('announcement', 'event-edit')),
            due_at \(db.bigint) NOT NULL,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'applied', 'failed', 'cancelled')),
            payload TEXT NOT NULL,
            reason TEXT,
            job_id TEXT,
            created_at \(db.bigint) NOT NULL,
            updated_at \(db.bigint) NOT NULL,
            finished_at \(db.bigint)
        );
        CREATE INDEX scheduled_actions_due ON scheduled_actions (due_at) WHERE state = 'pending';
        CREATE INDEX scheduled_actions_event ON scheduled_actions (event_id, due_at);
        ALTER TABLE google_classes ADD COLUMN announcement_id TEXT;
        """
    }
}

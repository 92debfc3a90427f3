// Version 11: email to attendees.
//
// - `events.language` (default `en`) and `passes.language` (NULL: the event's): the language of the
//   email that brings a ticket.
// - `mail_outbox`: the durable outbox of ticket emails, one row per ticket (`pass_id`), with the
//   bookkeeping columns every outbox shares (see `OutboxTable`). Rows are locked in `pass_id` order
//   by every transaction that touches several of them.
// - `ticket_emails`: what became of each ticket's email, kept after its outbox row is gone: `state`
//   queued, sent or failed; when it was queued, last sent and last failed; the server's last reply
//   (the refusal of a failed one, or the temporary answer it is being retried after); how many times
//   it was sent; and the event and send job it belongs to (indexed, for the event's and the job's
//   counts). Locked after the outbox rows, in `pass_id` order.

extension Migration {
    static let mail = Migration(version: 11, name: "email to attendees: languages, mail outbox, ticket email status") { db in
        """
        ALTER TABLE events ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
        ALTER TABLE passes ADD COLUMN language TEXT;
        CREATE TABLE mail_outbox (
            id \(db.serialKey), pass_id \(db.bigint) NOT NULL UNIQUE REFERENCES passes(id) ON DELETE CASCADE,
            generation \(db.bigint) NOT NULL DEFAULT 1, attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at \(db.bigint) NOT NULL, claimed_until \(db.bigint), first_enqueued_at \(db.bigint) NOT NULL,
            last_status INTEGER, last_reason TEXT,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')));
        CREATE INDEX mail_outbox_due ON mail_outbox (state, next_attempt_at);
        CREATE TABLE ticket_emails (
            pass_id \(db.bigint) PRIMARY KEY REFERENCES passes(id) ON DELETE CASCADE,
            event_id TEXT, job_id TEXT,
            state TEXT NOT NULL CHECK (state IN ('queued', 'sent', 'failed')),
            queued_at \(db.bigint) NOT NULL, sent_at \(db.bigint), failed_at \(db.bigint), reply TEXT,
            sent_count INTEGER NOT NULL DEFAULT 0, updated_at \(db.bigint) NOT NULL);
        CREATE INDEX ticket_emails_event ON ticket_emails (event_id, state);
        CREATE INDEX ticket_emails_job ON ticket_emails (job_id, state);
        """
    }
}

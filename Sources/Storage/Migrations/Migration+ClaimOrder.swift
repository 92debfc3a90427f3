// Version 12: claiming outbox rows and bumping passes without work that grows with the event.
//
// Claims ask for the oldest due pending rows, `ORDER BY next_attempt_at, id LIMIT n`. The index on
// (state, next_attempt_at) left the `id` order to a sort of every due row, and during an event
// edit every row is due: each claim read and sorted the whole outbox, so one edit cost claims ×
// outbox size. A partial index in exactly the claim's order, over pending rows only, lets a claim
// read its n rows and stop. Measured on a 10,000-phone event edit: claiming took 9.7 s of
// PostgreSQL time before and 0.2 s after. The same index serves the mail outbox's claims.
//
// The tally of cancelled tickets ran a statement-level trigger with transition tables on every
// UPDATE of passes, though only a status change can move it: each pass fetch (which records the
// served revision) and each re-push batch paid for copying its rows into the transition tables
// (3.6 s per 10,000 fetches). A row trigger whose WHEN condition is checked before any function
// runs costs nothing on the updates that leave `status` alone. SQLite's trigger already fires on
// `UPDATE OF status` only.

extension Migration {
    static let claimOrder = Migration(
        version: 12,
        name: "claim outbox rows in index order; tally only status changes of passes",
        postgres: """
        CREATE INDEX push_outbox_ready ON push_outbox (next_attempt_at, id) WHERE state = 'pending';
        CREATE INDEX mail_outbox_ready ON mail_outbox (next_attempt_at, id) WHERE state = 'pending';
        DROP TRIGGER passes_tally_update ON passes;
        DROP FUNCTION tally_passes_updated();
        CREATE FUNCTION tally_pass_status_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.event_id IS NOT NULL THEN
                INSERT INTO event_tally_changes (event_id, job_id, voided)
                VALUES (NEW.event_id, '', CASE WHEN NEW.status = 'voided' THEN 1 ELSE -1 END);
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER passes_tally_status AFTER UPDATE ON passes FOR EACH ROW
            WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION tally_pass_status_changed();
        """,
        sqlite: """
        CREATE INDEX push_outbox_ready ON push_outbox (next_attempt_at, id) WHERE state = 'pending';
        CREATE INDEX mail_outbox_ready ON mail_outbox (next_attempt_at, id) WHERE state = 'pending';
        """
    )
}

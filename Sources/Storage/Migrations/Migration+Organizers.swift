// Version 6: what organizers need to run large events.
//
// - `events.archived_at`: an archived event's changes reach its passes but enqueue no pushes.
// - `passes.external_id`: the organizer's own id for a ticket, unique within its event (NULLs never
//   collide), which makes a re-uploaded attendee list idempotent.
// - `passes.extra`: the values of the template's declared extra fields, a JSON object (NULL when
//   none).
// - `search_text` on events (name, venue) and passes (attendee name, email, serial number,
//   external id): the searched texts lowercased by the application, one per line, so a
//   case-insensitive substring search is one `LIKE` on both backends whatever the database's
//   locale. Existing rows are filled here with the database's `lower()`, which folds at least
//   ASCII letters; the next change of a row writes the application's lowercase form.
// - Indexes: events newest first; an event's passes by status (counts, the status filter).

extension Migration {
    static let organizers = Migration(version: 6, name: "archived events, external ids, extra fields, search text") { db in
        let newline = db.pick(postgres: "chr(10)", sqlite: "char(10)")
        return """
        ALTER TABLE events ADD COLUMN archived_at \(db.bigint);
        ALTER TABLE events ADD COLUMN search_text TEXT;
        UPDATE events SET search_text = lower(name || \(newline) || venue);
        CREATE INDEX events_newest ON events (starts_at DESC, id);
        ALTER TABLE passes ADD COLUMN external_id TEXT;
        ALTER TABLE passes ADD COLUMN extra TEXT;
        ALTER TABLE passes ADD COLUMN search_text TEXT;
        UPDATE passes SET search_text = lower(attendee_name || \(newline) || coalesce(attendee_email, '') || \(newline) || serial_number);
        CREATE UNIQUE INDEX passes_event_external_id ON passes (event_id, external_id);
        CREATE INDEX passes_event_status ON passes (event_id, status, id);
        """
    }
}

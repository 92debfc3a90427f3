// Version 19: who came, counted from indexes.
//
// The attendance page counts an event's tickets by when they were issued, its passes by when a
// phone first added them, its check-ins by quarter hour and by gate, and its active tickets by
// ticket type, checked in or not. Each count reads an index holding every column it needs (the
// event's entries, never its rows); the counts over time are one range count per bucket, which
// reads the index in order and sorts nothing:
//
// - `passes_event_created` (event, issue time): tickets issued over time.
// - `passes.wallet_added_at`: when a phone first added the pass to Wallet (its first
//   registration), set once by a trigger on `registrations` and kept when the phone removes it;
//   filled in here from the registrations there are. `passes_event_wallet` counts them over time.
// - `passes.ticket_type`: the `ticketType` extra field as a column of its own, derived from
//   `extra` by the database (SQLite: a virtual generated column; PostgreSQL: a stored one), so
//   that `passes_event_type` (event, status, ticket type) counts an event's tickets by type
//   without decoding any ticket's JSON. No index of `passes` holds `checked_in_at`: a check-in's
//   pass change stays a HOT update on PostgreSQL (migration 8), which the door's rate depends on.
// - `checkins.ticket_type`: the pass's ticket type when it was checked in, written with the
//   check-in, so the checked-in tickets are counted by type from the check-ins alone.
// - `checkins_event_time` (event, check-in time, gate, ticket type) replaces `checkins_event`
//   (event): the check-ins per quarter hour, by gate and by type read it alone, and a check-in
//   writes no more index entries than before.
// - `checkin_undos`: a check-in undone from the dashboard or the admin API, who undid it and when,
//   kept with the check-in it removed (the ticket page lists them; the rows go with the pass).

extension Migration {
    static let attendance = Migration(version: 19, name: "attendance: aggregate indexes, first Wallet add, ticket type column, undone check-ins") { db in
        let ticketType = db.pick(
            postgres: "ALTER TABLE passes ADD COLUMN ticket_type TEXT GENERATED ALWAYS AS ((extra::jsonb) ->> 'ticketType') STORED;",
            sqlite: "ALTER TABLE passes ADD COLUMN ticket_type TEXT GENERATED ALWAYS AS (json_extract(extra, '$.ticketType')) VIRTUAL;"
        )
        let firstAdd = "UPDATE passes SET wallet_added_at = NEW.created_at WHERE pass_type_identifier = NEW.pass_type_identifier "
            + "AND serial_number = NEW.serial_number AND wallet_added_at IS NULL;"
        let trigger = db.pick(
            postgres: """
                CREATE FUNCTION registration_first_add() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    \(firstAdd)
                    RETURN NULL;
                END $$;
                CREATE TRIGGER registrations_first_add AFTER INSERT ON registrations FOR EACH ROW EXECUTE FUNCTION registration_first_add();
                """,
            sqlite: """
                CREATE TRIGGER registrations_first_add AFTER INSERT ON registrations BEGIN
                    \(firstAdd)
                END;
                """
        )
        return """
            \(ticketType)
            ALTER TABLE passes ADD COLUMN wallet_added_at \(db.bigint);
            UPDATE passes SET wallet_added_at = (
                SELECT min(r.created_at) FROM registrations r WHERE r.pass_type_identifier = passes.pass_type_identifier AND r.serial_number = passes.serial_number)
            WHERE EXISTS (SELECT 1 FROM registrations r WHERE r.pass_type_identifier = passes.pass_type_identifier AND r.serial_number = passes.serial_number);
            \(trigger)
            CREATE INDEX passes_event_created ON passes (event_id, created_at);
            CREATE INDEX passes_event_wallet ON passes (event_id, wallet_added_at);
            CREATE INDEX passes_event_type ON passes (event_id, status, ticket_type);
            ALTER TABLE checkins ADD COLUMN ticket_type TEXT;
            UPDATE checkins SET ticket_type = (SELECT p.ticket_type FROM passes p WHERE p.id = checkins.pass_id);
            DROP INDEX checkins_event;
            CREATE INDEX checkins_event_time ON checkins (event_id, checked_in_at, gate, ticket_type);
            CREATE TABLE checkin_undos (
                id \(db.serialKey), pass_id \(db.bigint) NOT NULL REFERENCES passes(id) ON DELETE CASCADE,
                checked_in_at \(db.bigint) NOT NULL, gate TEXT, scanner TEXT, undone_at \(db.bigint) NOT NULL, undone_by TEXT NOT NULL);
            CREATE INDEX checkin_undos_pass ON checkin_undos (pass_id, id);
            """
    }
}

// Version 19: who came, counted from indexes.
//
// The attendance page counts an event's tickets by when they were issued, its passes by when a
// phone first added them, its check-ins by quarter hour and by gate, and its active tickets by
// ticket type, checked in or not. Each count is one aggregate over an index that holds every
// column it reads (an index-only scan of the event's entries, never a read of its rows):
//
// - `passes_event_created` (event, issue time): tickets issued over time.
// - `passes.ticket_type`: the `ticketType` extra field as a column of its own, derived from
//   `extra` by the database (SQLite: a virtual generated column; PostgreSQL: a stored one), so
//   that `passes_event_type` (event, status, ticket type, check-in time) can answer the breakdown
//   by type without decoding any ticket's JSON.
// - `checkins_event_time` (event, check-in time, gate): check-ins per quarter hour and by gate.
// - `registrations_event_first` (event, pass, registration time): the first registration of each
//   pass, that is when it was added to Wallet.
// - `checkin_undos`: a check-in undone from the dashboard or the admin API, who undid it and when,
//   kept with the check-in it removed (the ticket page lists them; the rows go with the pass).

extension Migration {
    static let attendance = Migration(version: 19, name: "attendance: aggregate indexes, ticket type column, undone check-ins") { db in
        let ticketType = db.pick(
            postgres: "ALTER TABLE passes ADD COLUMN ticket_type TEXT GENERATED ALWAYS AS ((extra::jsonb) ->> 'ticketType') STORED;",
            sqlite: "ALTER TABLE passes ADD COLUMN ticket_type TEXT GENERATED ALWAYS AS (json_extract(extra, '$.ticketType')) VIRTUAL;"
        )
        return """
            \(ticketType)
            CREATE INDEX passes_event_created ON passes (event_id, created_at);
            CREATE INDEX passes_event_type ON passes (event_id, status, ticket_type, checked_in_at);
            CREATE INDEX checkins_event_time ON checkins (event_id, checked_in_at, gate);
            CREATE INDEX registrations_event_first ON registrations (event_id, pass_id, created_at);
            CREATE TABLE checkin_undos (
                id \(db.serialKey), pass_id \(db.bigint) NOT NULL REFERENCES passes(id) ON DELETE CASCADE,
                checked_in_at \(db.bigint) NOT NULL, gate TEXT, scanner TEXT, undone_at \(db.bigint) NOT NULL, undone_by TEXT NOT NULL);
            CREATE INDEX checkin_undos_pass ON checkin_undos (pass_id, id);
            """
    }
}

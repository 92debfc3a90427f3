// The first schema. Time columns named `*_at` hold milliseconds since 1970 as BIGINT on both
// backends (one SQL shape for both, no time-zone conversions), except `passes.modified_at`,
// which holds whole seconds because it is the HTTP `Last-Modified` value.

extension Migration {
    static let initialSchema = Migration(version: 1, name: "initial schema") { db in
        """
        CREATE TABLE counters (name TEXT PRIMARY KEY, value \(db.bigint) NOT NULL);
        INSERT INTO counters (name, value) VALUES ('revision', 0);
        CREATE TABLE events (
            id TEXT PRIMARY KEY, name TEXT NOT NULL, venue TEXT NOT NULL,
            starts_at \(db.bigint) NOT NULL, ends_at \(db.bigint), time_zone TEXT NOT NULL, template TEXT NOT NULL,
            revision \(db.bigint) NOT NULL, created_at \(db.bigint) NOT NULL, updated_at \(db.bigint) NOT NULL);
        CREATE TABLE passes (
            id \(db.serialKey),
            pass_type_identifier TEXT NOT NULL, serial_number TEXT NOT NULL,
            authentication_token_hash \(db.bytes) NOT NULL, download_token_hash \(db.bytes) NOT NULL UNIQUE,
            event_id TEXT REFERENCES events(id),
            attendee_name TEXT NOT NULL, attendee_email TEXT, seat TEXT,
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'voided')), void_reason TEXT,
            revision \(db.bigint) NOT NULL, modified_at \(db.bigint) NOT NULL, created_at \(db.bigint) NOT NULL,
            UNIQUE (pass_type_identifier, serial_number));
        CREATE INDEX passes_event ON passes (event_id, id);
        CREATE TABLE devices (device_library_identifier TEXT PRIMARY KEY, push_token TEXT NOT NULL, updated_at \(db.bigint) NOT NULL);
        CREATE INDEX devices_push_token ON devices (push_token);
        CREATE TABLE registrations (
            device_library_identifier TEXT NOT NULL REFERENCES devices(device_library_identifier) ON DELETE CASCADE,
            pass_type_identifier TEXT NOT NULL, serial_number TEXT NOT NULL,
            created_at \(db.bigint) NOT NULL, updated_at \(db.bigint) NOT NULL,
            PRIMARY KEY (device_library_identifier, pass_type_identifier, serial_number),
            FOREIGN KEY (pass_type_identifier, serial_number) REFERENCES passes (pass_type_identifier, serial_number) ON DELETE CASCADE);
        CREATE INDEX registrations_pass ON registrations (pass_type_identifier, serial_number);
        CREATE TABLE push_outbox (
            id \(db.serialKey), push_token TEXT NOT NULL, pass_type_identifier TEXT NOT NULL,
            generation \(db.bigint) NOT NULL DEFAULT 1, attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at \(db.bigint) NOT NULL, claimed_until \(db.bigint), first_enqueued_at \(db.bigint) NOT NULL,
            last_status INTEGER, last_reason TEXT,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')),
            UNIQUE (push_token, pass_type_identifier));
        CREATE INDEX push_outbox_due ON push_outbox (state, next_attempt_at);
        CREATE TABLE push_log (
            id \(db.serialKey), token_hash TEXT NOT NULL, pass_type_identifier TEXT NOT NULL,
            status INTEGER NOT NULL, reason TEXT, apns_id TEXT, latency_ms \(db.bigint) NOT NULL, created_at \(db.bigint) NOT NULL);
        CREATE INDEX push_log_token ON push_log (token_hash, id);
        CREATE TABLE jobs (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, event_id TEXT REFERENCES events(id),
            state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed')),
            total \(db.bigint) NOT NULL DEFAULT 0, done \(db.bigint) NOT NULL DEFAULT 0, failed \(db.bigint) NOT NULL DEFAULT 0,
            cursor \(db.bigint) NOT NULL DEFAULT 0, claimed_until \(db.bigint), started_at \(db.bigint), finished_at \(db.bigint),
            error TEXT, created_at \(db.bigint) NOT NULL);
        CREATE INDEX jobs_state ON jobs (state, created_at);
        CREATE TABLE admin_tokens (
            id \(db.serialKey), name TEXT NOT NULL, token_hash \(db.bytes) NOT NULL UNIQUE,
            created_at \(db.bigint) NOT NULL, revoked_at \(db.bigint));
        CREATE TABLE device_logs (id \(db.serialKey), message TEXT NOT NULL, peer TEXT, created_at \(db.bigint) NOT NULL);
        """
    }
}

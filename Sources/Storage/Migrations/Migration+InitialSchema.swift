// The first schema. Time columns named `*_at` hold milliseconds since 1970 as BIGINT on both
// backends (one SQL shape for both, no time-zone conversions), except `passes.modified_at`,
// which holds whole seconds because it is the HTTP `Last-Modified` value.

extension Migration {
    static let initialSchema = Migration(
        version: 1,
        name: "initial schema",
        postgres: """
        CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
        INSERT INTO counters (name, value) VALUES ('revision', 0);
        CREATE TABLE events (
            id TEXT PRIMARY KEY, name TEXT NOT NULL, venue TEXT NOT NULL,
            starts_at BIGINT NOT NULL, ends_at BIGINT, time_zone TEXT NOT NULL, template TEXT NOT NULL,
            revision BIGINT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
        CREATE TABLE passes (
            id BIGSERIAL PRIMARY KEY,
            pass_type_identifier TEXT NOT NULL, serial_number TEXT NOT NULL,
            authentication_token_hash BYTEA NOT NULL, download_token_hash BYTEA NOT NULL UNIQUE,
            event_id TEXT REFERENCES events(id),
            attendee_name TEXT NOT NULL, attendee_email TEXT, seat TEXT,
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'voided')), void_reason TEXT,
            revision BIGINT NOT NULL, modified_at BIGINT NOT NULL, created_at BIGINT NOT NULL,
            UNIQUE (pass_type_identifier, serial_number));
        CREATE INDEX passes_event ON passes (event_id, id);
        CREATE TABLE devices (device_library_identifier TEXT PRIMARY KEY, push_token TEXT NOT NULL, updated_at BIGINT NOT NULL);
        CREATE INDEX devices_push_token ON devices (push_token);
        CREATE TABLE registrations (
            device_library_identifier TEXT NOT NULL REFERENCES devices(device_library_identifier) ON DELETE CASCADE,
            pass_type_identifier TEXT NOT NULL, serial_number TEXT NOT NULL,
            created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
            PRIMARY KEY (device_library_identifier, pass_type_identifier, serial_number),
            FOREIGN KEY (pass_type_identifier, serial_number) REFERENCES passes (pass_type_identifier, serial_number) ON DELETE CASCADE);
        CREATE INDEX registrations_pass ON registrations (pass_type_identifier, serial_number);
        CREATE TABLE push_outbox (
            id BIGSERIAL PRIMARY KEY, push_token TEXT NOT NULL, pass_type_identifier TEXT NOT NULL,
            generation BIGINT NOT NULL DEFAULT 1, attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at BIGINT NOT NULL, claimed_until BIGINT, first_enqueued_at BIGINT NOT NULL,
            last_status INTEGER, last_reason TEXT,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')),
            UNIQUE (push_token, pass_type_identifier));
        CREATE INDEX push_outbox_due ON push_outbox (state, next_attempt_at);
        CREATE TABLE push_log (
            id BIGSERIAL PRIMARY KEY, token_hash TEXT NOT NULL, pass_type_identifier TEXT NOT NULL,
            status INTEGER NOT NULL, reason TEXT, apns_id TEXT, latency_ms BIGINT NOT NULL, created_at BIGINT NOT NULL);
        CREATE INDEX push_log_token ON push_log (token_hash, id);
        CREATE TABLE jobs (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, event_id TEXT REFERENCES events(id),
            state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed')),
            total BIGINT NOT NULL DEFAULT 0, done BIGINT NOT NULL DEFAULT 0, failed BIGINT NOT NULL DEFAULT 0,
            cursor BIGINT NOT NULL DEFAULT 0, claimed_until BIGINT, started_at BIGINT, finished_at BIGINT,
            error TEXT, created_at BIGINT NOT NULL);
        CREATE INDEX jobs_state ON jobs (state, created_at);
        CREATE TABLE admin_tokens (
            id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, token_hash BYTEA NOT NULL UNIQUE,
            created_at BIGINT NOT NULL, revoked_at BIGINT);
        CREATE TABLE device_logs (id BIGSERIAL PRIMARY KEY, message TEXT NOT NULL, peer TEXT, created_at BIGINT NOT NULL);
        """,
        sqlite: """
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO counters (name, value) VALUES ('revision', 0);
        CREATE TABLE events (
            id TEXT PRIMARY KEY, name TEXT NOT NULL, venue TEXT NOT NULL,
            starts_at INTEGER NOT NULL, ends_at INTEGER, time_zone TEXT NOT NULL, template TEXT NOT NULL,
            revision INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
        CREATE TABLE passes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            pass_type_identifier TEXT NOT NULL, serial_number TEXT NOT NULL,
            authentication_token_hash BLOB NOT NULL, download_token_hash BLOB NOT NULL UNIQUE,
            event_id TEXT REFERENCES events(id),
            attendee_name TEXT NOT NULL, attendee_email TEXT, seat TEXT,
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'voided')), void_reason TEXT,
            revision INTEGER NOT NULL, modified_at INTEGER NOT NULL, created_at INTEGER NOT NULL,
            UNIQUE (pass_type_identifier, serial_number));
        CREATE INDEX passes_event ON passes (event_id, id);
        CREATE TABLE devices (device_library_identifier TEXT PRIMARY KEY, push_token TEXT NOT NULL, updated_at INTEGER NOT NULL);
        CREATE INDEX devices_push_token ON devices (push_token);
        CREATE TABLE registrations (
            device_library_identifier TEXT NOT NULL REFERENCES devices(device_library_identifier) ON DELETE CASCADE,
            pass_type_identifier TEXT NOT NULL, serial_number TEXT NOT NULL,
            created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
            PRIMARY KEY (device_library_identifier, pass_type_identifier, serial_number),
            FOREIGN KEY (pass_type_identifier, serial_number) REFERENCES passes (pass_type_identifier, serial_number) ON DELETE CASCADE);
        CREATE INDEX registrations_pass ON registrations (pass_type_identifier, serial_number);
        CREATE TABLE push_outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT, push_token TEXT NOT NULL, pass_type_identifier TEXT NOT NULL,
            generation INTEGER NOT NULL DEFAULT 1, attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL, claimed_until INTEGER, first_enqueued_at INTEGER NOT NULL,
            last_status INTEGER, last_reason TEXT,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')),
            UNIQUE (push_token, pass_type_identifier));
        CREATE INDEX push_outbox_due ON push_outbox (state, next_attempt_at);
        CREATE TABLE push_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT, token_hash TEXT NOT NULL, pass_type_identifier TEXT NOT NULL,
            status INTEGER NOT NULL, reason TEXT, apns_id TEXT, latency_ms INTEGER NOT NULL, created_at INTEGER NOT NULL);
        CREATE INDEX push_log_token ON push_log (token_hash, id);
        CREATE TABLE jobs (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, event_id TEXT REFERENCES events(id),
            state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed')),
            total INTEGER NOT NULL DEFAULT 0, done INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0,
            cursor INTEGER NOT NULL DEFAULT 0, claimed_until INTEGER, started_at INTEGER, finished_at INTEGER,
            error TEXT, created_at INTEGER NOT NULL);
        CREATE INDEX jobs_state ON jobs (state, created_at);
        CREATE TABLE admin_tokens (
            id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, token_hash BLOB NOT NULL UNIQUE,
            created_at INTEGER NOT NULL, revoked_at INTEGER);
        CREATE TABLE device_logs (id INTEGER PRIMARY KEY AUTOINCREMENT, message TEXT NOT NULL, peer TEXT, created_at INTEGER NOT NULL);
        """
    )
}

// Version 7 on SQLite (see Migration+Reach.swift for what it does and why). SQLite has row
// triggers only; it has a single writer, so they cannot deadlock, and the tallies they feed are the
// same as PostgreSQL's.

extension Migration {
    static let reachSQLite = """
        ALTER TABLE admin_tokens ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'viewer', 'scanner'));
        UPDATE admin_tokens SET name = name || ' (token ' || id || ')'
        WHERE revoked_at IS NULL AND EXISTS (
            SELECT 1 FROM admin_tokens newer WHERE newer.name = admin_tokens.name AND newer.revoked_at IS NULL AND newer.id > admin_tokens.id);
        CREATE UNIQUE INDEX admin_tokens_active_name ON admin_tokens (name) WHERE revoked_at IS NULL;

        ALTER TABLE passes ADD COLUMN served_revision INTEGER;
        ALTER TABLE passes ADD COLUMN served_at INTEGER;
        ALTER TABLE passes ADD COLUMN job_id TEXT;
        ALTER TABLE registrations ADD COLUMN pass_id INTEGER;
        ALTER TABLE registrations ADD COLUMN event_id TEXT;
        ALTER TABLE registrations ADD COLUMN job_id TEXT;
        ALTER TABLE registrations ADD COLUMN pass_revision INTEGER;
        ALTER TABLE registrations ADD COLUMN served_revision INTEGER;
        ALTER TABLE registrations ADD COLUMN told_revision INTEGER;
        ALTER TABLE registrations ADD COLUMN told_at INTEGER;
        UPDATE registrations SET (pass_id, event_id, pass_revision) = (
            SELECT p.id, p.event_id, p.revision FROM passes p
            WHERE p.pass_type_identifier = registrations.pass_type_identifier AND p.serial_number = registrations.serial_number);
        CREATE INDEX registrations_event_pass ON registrations (event_id, pass_id);
        ALTER TABLE push_outbox ADD COLUMN event_id TEXT;
        ALTER TABLE push_outbox ADD COLUMN job_id TEXT;

        CREATE TABLE event_tallies (
            event_id TEXT NOT NULL, job_id TEXT NOT NULL,
            tickets INTEGER NOT NULL DEFAULT 0, voided INTEGER NOT NULL DEFAULT 0,
            registered_devices INTEGER NOT NULL DEFAULT 0, devices INTEGER NOT NULL DEFAULT 0, devices_current INTEGER NOT NULL DEFAULT 0,
            pushes_pending INTEGER NOT NULL DEFAULT 0, pushes_delivered INTEGER NOT NULL DEFAULT 0, pushes_failed INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (event_id, job_id));
        CREATE TABLE event_tally_changes (
            id INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, job_id TEXT NOT NULL,
            tickets INTEGER NOT NULL DEFAULT 0, voided INTEGER NOT NULL DEFAULT 0,
            registered_devices INTEGER NOT NULL DEFAULT 0, devices INTEGER NOT NULL DEFAULT 0, devices_current INTEGER NOT NULL DEFAULT 0,
            pushes_pending INTEGER NOT NULL DEFAULT 0, pushes_delivered INTEGER NOT NULL DEFAULT 0, pushes_failed INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX event_tally_changes_event ON event_tally_changes (event_id, job_id);
        CREATE TABLE event_devices (
            event_id TEXT NOT NULL, device_library_identifier TEXT NOT NULL, registrations INTEGER NOT NULL,
            PRIMARY KEY (event_id, device_library_identifier));
        INSERT INTO event_devices (event_id, device_library_identifier, registrations)
        SELECT event_id, device_library_identifier, count(*) FROM registrations WHERE event_id IS NOT NULL GROUP BY 1, 2;
        INSERT INTO event_tallies (event_id, job_id, tickets, voided, registered_devices, devices)
        SELECT e.id, '',
            (SELECT count(*) FROM passes p WHERE p.event_id = e.id),
            (SELECT count(*) FROM passes p WHERE p.event_id = e.id AND p.status = 'voided'),
            (SELECT count(*) FROM event_devices d WHERE d.event_id = e.id),
            (SELECT count(*) FROM registrations r WHERE r.event_id = e.id)
        FROM events e;

        CREATE TRIGGER registrations_copy_pass AFTER INSERT ON registrations BEGIN
            UPDATE registrations SET (pass_id, event_id, job_id, pass_revision, served_revision) = (
                SELECT p.id, p.event_id, p.job_id, p.revision, p.served_revision FROM passes p
                WHERE p.pass_type_identifier = NEW.pass_type_identifier AND p.serial_number = NEW.serial_number)
            WHERE device_library_identifier = NEW.device_library_identifier
              AND pass_type_identifier = NEW.pass_type_identifier AND serial_number = NEW.serial_number;
            INSERT INTO event_tally_changes (event_id, job_id, registered_devices)
            SELECT p.event_id, '', 1 FROM passes p
            WHERE p.pass_type_identifier = NEW.pass_type_identifier AND p.serial_number = NEW.serial_number AND p.event_id IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM event_devices d
                  WHERE d.event_id = p.event_id AND d.device_library_identifier = NEW.device_library_identifier);
            INSERT INTO event_devices (event_id, device_library_identifier, registrations)
            SELECT p.event_id, NEW.device_library_identifier, 1 FROM passes p
            WHERE p.pass_type_identifier = NEW.pass_type_identifier AND p.serial_number = NEW.serial_number AND p.event_id IS NOT NULL
            ON CONFLICT (event_id, device_library_identifier) DO UPDATE SET registrations = registrations + 1;
        END;
        CREATE TRIGGER registrations_tally_update AFTER UPDATE ON registrations BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, devices, devices_current)
            SELECT event_id, job_id, sum(devices), sum(current) FROM (
                SELECT NEW.event_id AS event_id, COALESCE(NEW.job_id, '') AS job_id, 1 AS devices,
                    CASE WHEN NEW.told_revision >= NEW.pass_revision AND NEW.served_revision >= NEW.pass_revision THEN 1 ELSE 0 END AS current
                WHERE NEW.event_id IS NOT NULL
                UNION ALL
                SELECT OLD.event_id, COALESCE(OLD.job_id, ''), -1,
                    CASE WHEN OLD.told_revision >= OLD.pass_revision AND OLD.served_revision >= OLD.pass_revision THEN -1 ELSE 0 END
                WHERE OLD.event_id IS NOT NULL)
            GROUP BY event_id, job_id HAVING sum(devices) <> 0 OR sum(current) <> 0;
        END;
        CREATE TRIGGER registrations_tally_delete AFTER DELETE ON registrations WHEN OLD.event_id IS NOT NULL BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, devices, devices_current)
            VALUES (OLD.event_id, COALESCE(OLD.job_id, ''), -1,
                CASE WHEN OLD.told_revision >= OLD.pass_revision AND OLD.served_revision >= OLD.pass_revision THEN -1 ELSE 0 END);
            UPDATE event_devices SET registrations = registrations - 1
            WHERE event_id = OLD.event_id AND device_library_identifier = OLD.device_library_identifier;
            INSERT INTO event_tally_changes (event_id, job_id, registered_devices)
            SELECT OLD.event_id, '', -1 FROM event_devices
            WHERE event_id = OLD.event_id AND device_library_identifier = OLD.device_library_identifier AND registrations <= 0;
            DELETE FROM event_devices
            WHERE event_id = OLD.event_id AND device_library_identifier = OLD.device_library_identifier AND registrations <= 0;
        END;
        CREATE TRIGGER passes_tally_insert AFTER INSERT ON passes WHEN NEW.event_id IS NOT NULL BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, tickets, voided)
            VALUES (NEW.event_id, '', 1, CASE WHEN NEW.status = 'voided' THEN 1 ELSE 0 END);
        END;
        CREATE TRIGGER passes_tally_update AFTER UPDATE OF status ON passes
        WHEN NEW.event_id IS NOT NULL AND NEW.status <> OLD.status BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, voided) VALUES (NEW.event_id, '', CASE WHEN NEW.status = 'voided' THEN 1 ELSE -1 END);
        END;
        CREATE TRIGGER push_outbox_tally_insert AFTER INSERT ON push_outbox
        WHEN NEW.event_id IS NOT NULL AND NEW.state = 'pending' BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, pushes_pending) VALUES (NEW.event_id, COALESCE(NEW.job_id, ''), 1);
        END;
        CREATE TRIGGER push_outbox_tally_update AFTER UPDATE OF state, event_id, job_id ON push_outbox
        WHEN OLD.state IS NOT NEW.state OR OLD.event_id IS NOT NEW.event_id OR OLD.job_id IS NOT NEW.job_id BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, pushes_pending)
            SELECT OLD.event_id, COALESCE(OLD.job_id, ''), -1 WHERE OLD.event_id IS NOT NULL AND OLD.state = 'pending';
            INSERT INTO event_tally_changes (event_id, job_id, pushes_pending)
            SELECT NEW.event_id, COALESCE(NEW.job_id, ''), 1 WHERE NEW.event_id IS NOT NULL AND NEW.state = 'pending';
        END;
        """
}

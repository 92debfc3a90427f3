// The parts of version 7 SQLite writes its own way (see Migration+Reach.swift for what it does and
// why): filling the copies of existing registrations, and the triggers. SQLite has row triggers
// only; it has a single writer, so they cannot deadlock, and the tallies they feed are the same as
// PostgreSQL's.

extension Migration {
    static let reachFillRegistrationsSQLite = """
        UPDATE registrations SET (pass_id, event_id, pass_revision) = (
            SELECT p.id, p.event_id, p.revision FROM passes p
            WHERE p.pass_type_identifier = registrations.pass_type_identifier AND p.serial_number = registrations.serial_number);
        """

    static let reachTriggersSQLite = """
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

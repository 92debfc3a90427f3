// The parts of version 7 PostgreSQL writes its own way (see Migration+Reach.swift for what it does
// and why): filling the copies of existing registrations, and the triggers.
//
// Tallies are kept by statement-level triggers with transition tables: one bump of 500 passes or
// one copy to their registrations adds one change row per (event, job), not one per row. The
// outbox's update trigger is per row but fires only when a row's state or owner changes, which the
// dispatcher's claims and retries never do. Triggers only ever insert into `event_tally_changes`,
// so they take no lock that another transaction could be waiting for.

extension Migration {
    static let reachFillRegistrationsPostgres = """
        UPDATE registrations SET pass_id = p.id, event_id = p.event_id, pass_revision = p.revision
        FROM passes p WHERE p.pass_type_identifier = registrations.pass_type_identifier AND p.serial_number = registrations.serial_number;
        """

    static let reachTriggersPostgres = """
        CREATE FUNCTION registration_copy_pass() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            SELECT p.id, p.event_id, p.job_id, p.revision, p.served_revision
            INTO NEW.pass_id, NEW.event_id, NEW.job_id, NEW.pass_revision, NEW.served_revision
            FROM passes p WHERE p.pass_type_identifier = NEW.pass_type_identifier AND p.serial_number = NEW.serial_number
            FOR SHARE;
            RETURN NEW;
        END $$;
        CREATE TRIGGER registrations_copy_pass BEFORE INSERT ON registrations
            FOR EACH ROW EXECUTE FUNCTION registration_copy_pass();

        CREATE FUNCTION tally_registrations_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, devices, devices_current)
            SELECT event_id, COALESCE(job_id, ''), count(*),
                count(*) FILTER (WHERE told_revision >= pass_revision AND served_revision >= pass_revision)
            FROM inserted WHERE event_id IS NOT NULL GROUP BY 1, 2;
            WITH added AS (
                INSERT INTO event_devices (event_id, device_library_identifier, registrations)
                SELECT event_id, device_library_identifier, count(*) FROM inserted WHERE event_id IS NOT NULL
                GROUP BY 1, 2 ORDER BY 1, 2
                ON CONFLICT (event_id, device_library_identifier)
                    DO UPDATE SET registrations = event_devices.registrations + excluded.registrations
                RETURNING event_id, (xmax = 0) AS created)
            INSERT INTO event_tally_changes (event_id, job_id, registered_devices)
            SELECT event_id, '', count(*) FROM added WHERE created GROUP BY event_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER registrations_tally_insert AFTER INSERT ON registrations REFERENCING NEW TABLE AS inserted
            FOR EACH STATEMENT EXECUTE FUNCTION tally_registrations_inserted();

        CREATE FUNCTION tally_registrations_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, devices, devices_current)
            SELECT event_id, job_id, sum(devices), sum(current) FROM (
                SELECT event_id, COALESCE(job_id, '') AS job_id, 1 AS devices,
                    CASE WHEN told_revision >= pass_revision AND served_revision >= pass_revision THEN 1 ELSE 0 END AS current
                FROM updated WHERE event_id IS NOT NULL
                UNION ALL
                SELECT event_id, COALESCE(job_id, ''), -1,
                    CASE WHEN told_revision >= pass_revision AND served_revision >= pass_revision THEN -1 ELSE 0 END
                FROM previous WHERE event_id IS NOT NULL) change
            GROUP BY event_id, job_id HAVING sum(devices) <> 0 OR sum(current) <> 0;
            RETURN NULL;
        END $$;
        CREATE TRIGGER registrations_tally_update AFTER UPDATE ON registrations REFERENCING OLD TABLE AS previous NEW TABLE AS updated
            FOR EACH STATEMENT EXECUTE FUNCTION tally_registrations_updated();

        CREATE FUNCTION tally_registrations_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, devices, devices_current)
            SELECT event_id, COALESCE(job_id, ''), -count(*),
                -count(*) FILTER (WHERE told_revision >= pass_revision AND served_revision >= pass_revision)
            FROM removed WHERE event_id IS NOT NULL GROUP BY 1, 2;
            WITH gone AS (
                DELETE FROM event_devices USING (
                    SELECT event_id, device_library_identifier, count(*) AS n FROM removed WHERE event_id IS NOT NULL GROUP BY 1, 2) r
                WHERE event_devices.event_id = r.event_id AND event_devices.device_library_identifier = r.device_library_identifier
                  AND event_devices.registrations <= r.n
                RETURNING event_devices.event_id)
            INSERT INTO event_tally_changes (event_id, job_id, registered_devices)
            SELECT event_id, '', -count(*) FROM gone GROUP BY event_id;
            UPDATE event_devices SET registrations = event_devices.registrations - r.n FROM (
                SELECT event_id, device_library_identifier, count(*) AS n FROM removed WHERE event_id IS NOT NULL GROUP BY 1, 2) r
            WHERE event_devices.event_id = r.event_id AND event_devices.device_library_identifier = r.device_library_identifier;
            RETURN NULL;
        END $$;
        CREATE TRIGGER registrations_tally_delete AFTER DELETE ON registrations REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT EXECUTE FUNCTION tally_registrations_deleted();

        CREATE FUNCTION tally_passes_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, tickets, voided)
            SELECT event_id, '', count(*), count(*) FILTER (WHERE status = 'voided')
            FROM inserted WHERE event_id IS NOT NULL GROUP BY event_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER passes_tally_insert AFTER INSERT ON passes REFERENCING NEW TABLE AS inserted
            FOR EACH STATEMENT EXECUTE FUNCTION tally_passes_inserted();

        CREATE FUNCTION tally_passes_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, voided)
            SELECT updated.event_id, '', sum(CASE WHEN updated.status = 'voided' THEN 1 ELSE -1 END)
            FROM updated JOIN previous ON previous.id = updated.id
            WHERE updated.event_id IS NOT NULL AND updated.status <> previous.status
            GROUP BY updated.event_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER passes_tally_update AFTER UPDATE ON passes REFERENCING OLD TABLE AS previous NEW TABLE AS updated
            FOR EACH STATEMENT EXECUTE FUNCTION tally_passes_updated();

        CREATE FUNCTION tally_outbox_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, pushes_pending)
            SELECT event_id, COALESCE(job_id, ''), count(*)
            FROM inserted WHERE event_id IS NOT NULL AND state = 'pending' GROUP BY 1, 2;
            RETURN NULL;
        END $$;
        CREATE TRIGGER push_outbox_tally_insert AFTER INSERT ON push_outbox REFERENCING NEW TABLE AS inserted
            FOR EACH STATEMENT EXECUTE FUNCTION tally_outbox_inserted();

        CREATE FUNCTION tally_outbox_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.event_id IS NOT NULL AND OLD.state = 'pending' THEN
                INSERT INTO event_tally_changes (event_id, job_id, pushes_pending) VALUES (OLD.event_id, COALESCE(OLD.job_id, ''), -1);
            END IF;
            IF NEW.event_id IS NOT NULL AND NEW.state = 'pending' THEN
                INSERT INTO event_tally_changes (event_id, job_id, pushes_pending) VALUES (NEW.event_id, COALESCE(NEW.job_id, ''), 1);
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER push_outbox_tally_update AFTER UPDATE ON push_outbox FOR EACH ROW
            WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.event_id IS DISTINCT FROM NEW.event_id OR OLD.job_id IS DISTINCT FROM NEW.job_id)
            EXECUTE FUNCTION tally_outbox_updated();
        """
}

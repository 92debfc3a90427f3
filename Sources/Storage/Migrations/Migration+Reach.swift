// Version 7: reach (which phones hold the current pass), running tallies per event and re-push
// job, and roles on admin tokens.
//
// Reach:
// - `registrations.told_revision`/`told_at`: the last `lastUpdated` tag the changed-serials list
//   returned to the device in an answer that listed this pass, and when.
// - `passes.served_revision`/`served_at`: the last revision of the pass served to any device
//   (a 200 of it, or a 304 confirming it), and when. Fetches carry no device id, so this is known
//   per pass only.
// - Registrations carry copies of what they are counted by: their pass's id, event, current
//   revision, served revision and the re-push job that last bumped it (`passes.job_id`). A
//   registration is up to date when `told_revision >= pass_revision AND served_revision >=
//   pass_revision`, a condition on its own row, so every change of it (list, fetch, bump,
//   deletion) is decided under that row's lock. The copies are written in the transaction that
//   changes the pass (after its outbox rows, the dispatcher's lock order: outbox, then
//   registrations), and filled in on insert by a trigger that reads the pass `FOR SHARE`.
//
// Tallies: `event_tallies` holds per (event, job) the counts the admin API reports (tickets,
// voided, registrations, registrations up to date, pushes pending, delivered, failed); `job_id` ''
// collects what no job owns. Triggers on passes, registrations and push_outbox append each change
// as a row of `event_tally_changes` (an insert: no shared row is locked while the changing
// transaction goes on), the dispatcher appends delivered and failed pushes, and a worker folds the
// changes into `event_tallies` every second. A read sums the tallies and the changes not folded
// yet, in one statement (one snapshot): a few rows whatever the size of the event.
//
// Admin tokens get a role (admin, viewer, scanner; existing tokens are admins) and names unique
// among active tokens; of existing active duplicates the newest keeps the name and the others are
// renamed `name (token ID)`, so no token stops working.

extension Migration {
    static let reach = Migration(version: 7, name: "reach, event tallies, admin token roles") { db in
        """
        ALTER TABLE admin_tokens ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'viewer', 'scanner'));
        UPDATE admin_tokens SET name = name || ' (token ' || id || ')'
        WHERE revoked_at IS NULL AND EXISTS (
            SELECT 1 FROM admin_tokens newer WHERE newer.name = admin_tokens.name AND newer.revoked_at IS NULL AND newer.id > admin_tokens.id);
        CREATE UNIQUE INDEX admin_tokens_active_name ON admin_tokens (name) WHERE revoked_at IS NULL;

        ALTER TABLE passes ADD COLUMN served_revision \(db.bigint);
        ALTER TABLE passes ADD COLUMN served_at \(db.bigint);
        ALTER TABLE passes ADD COLUMN job_id TEXT;
        ALTER TABLE registrations ADD COLUMN pass_id \(db.bigint);
        ALTER TABLE registrations ADD COLUMN event_id TEXT;
        ALTER TABLE registrations ADD COLUMN job_id TEXT;
        ALTER TABLE registrations ADD COLUMN pass_revision \(db.bigint);
        ALTER TABLE registrations ADD COLUMN served_revision \(db.bigint);
        ALTER TABLE registrations ADD COLUMN told_revision \(db.bigint);
        ALTER TABLE registrations ADD COLUMN told_at \(db.bigint);
        \(db.pick(postgres: reachFillRegistrationsPostgres, sqlite: reachFillRegistrationsSQLite))
        CREATE INDEX registrations_event_pass ON registrations (event_id, pass_id);
        ALTER TABLE push_outbox ADD COLUMN event_id TEXT;
        ALTER TABLE push_outbox ADD COLUMN job_id TEXT;

        CREATE TABLE event_tallies (
            event_id TEXT NOT NULL, job_id TEXT NOT NULL,
            tickets \(db.bigint) NOT NULL DEFAULT 0, voided \(db.bigint) NOT NULL DEFAULT 0,
            registered_devices \(db.bigint) NOT NULL DEFAULT 0, devices \(db.bigint) NOT NULL DEFAULT 0, devices_current \(db.bigint) NOT NULL DEFAULT 0,
            pushes_pending \(db.bigint) NOT NULL DEFAULT 0, pushes_delivered \(db.bigint) NOT NULL DEFAULT 0, pushes_failed \(db.bigint) NOT NULL DEFAULT 0,
            PRIMARY KEY (event_id, job_id));
        CREATE TABLE event_tally_changes (
            id \(db.serialKey), event_id TEXT NOT NULL, job_id TEXT NOT NULL,
            tickets \(db.bigint) NOT NULL DEFAULT 0, voided \(db.bigint) NOT NULL DEFAULT 0,
            registered_devices \(db.bigint) NOT NULL DEFAULT 0, devices \(db.bigint) NOT NULL DEFAULT 0, devices_current \(db.bigint) NOT NULL DEFAULT 0,
            pushes_pending \(db.bigint) NOT NULL DEFAULT 0, pushes_delivered \(db.bigint) NOT NULL DEFAULT 0, pushes_failed \(db.bigint) NOT NULL DEFAULT 0);
        CREATE INDEX event_tally_changes_event ON event_tally_changes (event_id, job_id);
        CREATE TABLE event_devices (
            event_id TEXT NOT NULL, device_library_identifier TEXT NOT NULL, registrations \(db.bigint) NOT NULL,
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

        \(db.pick(postgres: reachTriggersPostgres, sqlite: reachTriggersSQLite))
        """
    }
}

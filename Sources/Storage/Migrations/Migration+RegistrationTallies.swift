// Version 26: a device registration on PostgreSQL writes its own tallies.
//
// A registration through the device API (`registerCapped`) is one statement with the pass row
// locked: it knows the pass, whether its row was inserted and which registrations it evicted. The
// triggers on `registrations` made it pay for rediscovering that: a row trigger reading the pass
// again to copy its columns, another updating the pass for its first Wallet add, and statement-level
// tally triggers whose transition tables and several plpgsql statements each cost more than the
// registration's own writes, plus change rows that cancel out when an eviction makes room (one
// device of an event out, one in). The statement now writes the copies, the first add, the
// `event_devices` counts and one net change row itself (none when the changes cancel out), and
// before it the transaction sets `pass_server.registration_tallied` (local to the transaction);
// while it is set the triggers below do not fire in that transaction:
//
// - `registrations_copy_pass` fires only for rows inserted without their pass's id (every other
//   writer), whatever the setting.
// - `registrations_first_add` and the three tally triggers fire unless the setting is on. The
//   registration's transaction deletes no registration it does not count itself: the devices it
//   forgets have none left (it deletes a device only while the device's row is the version it saw,
//   and every writer of a registration upserts the device first), so their cascade deletes none.
//
// Every other writer of `registrations` (unregistrations, prunes, erasure, retention, the uncapped
// upsert, job and reach updates, cascades) is unchanged. SQLite keeps its triggers: it has no such
// setting, and its one writer at a time makes them cheaper than PostgreSQL's.

extension Migration {
    static let registrationTallies = Migration(
        version: 26,
        name: "device registrations on PostgreSQL write their own pass copies and tallies",
        postgres: """
        DROP TRIGGER registrations_copy_pass ON registrations;
        CREATE TRIGGER registrations_copy_pass BEFORE INSERT ON registrations
            FOR EACH ROW WHEN (NEW.pass_id IS NULL) EXECUTE FUNCTION registration_copy_pass();
        DROP TRIGGER registrations_first_add ON registrations;
        CREATE TRIGGER registrations_first_add AFTER INSERT ON registrations FOR EACH ROW
            WHEN (\(notTalliedByTransaction)) EXECUTE FUNCTION registration_first_add();
        DROP TRIGGER registrations_tally_insert ON registrations;
        CREATE TRIGGER registrations_tally_insert AFTER INSERT ON registrations REFERENCING NEW TABLE AS inserted
            FOR EACH STATEMENT WHEN (\(notTalliedByTransaction)) EXECUTE FUNCTION tally_registrations_inserted();
        DROP TRIGGER registrations_tally_update ON registrations;
        CREATE TRIGGER registrations_tally_update AFTER UPDATE ON registrations REFERENCING OLD TABLE AS previous NEW TABLE AS updated
            FOR EACH STATEMENT WHEN (\(notTalliedByTransaction)) EXECUTE FUNCTION tally_registrations_updated();
        DROP TRIGGER registrations_tally_delete ON registrations;
        CREATE TRIGGER registrations_tally_delete AFTER DELETE ON registrations REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT WHEN (\(notTalliedByTransaction)) EXECUTE FUNCTION tally_registrations_deleted();
        """,
        sqlite: ""
    )

    private static let notTalliedByTransaction =
        "current_setting('pass_server.registration_tallied', true) IS DISTINCT FROM 'on'"
}

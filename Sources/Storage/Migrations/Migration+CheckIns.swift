// Version 10: check-in at the door.
//
// - `checkins`: one row per ticket let in (`pass_id` is the primary key, so a ticket is checked in
//   at most once, whatever races): when it was scanned (`checked_in_at`, the scanner's own time for
//   a scan sent later), at which gate, by which admin token (its name), when the server recorded
//   it, and the ticket's event (indexed, for the event's count).
// - `passes.checked_in_at`: the same time on the pass row, which is what a pass is rendered from
//   (its status field reads "Checked in"); written in the same transaction as the `checkins` row.

extension Migration {
    static let checkIns = Migration(version: 10, name: "check-ins at the door") { db in
        """
        CREATE TABLE checkins (
            pass_id \(db.bigint) PRIMARY KEY REFERENCES passes(id) ON DELETE CASCADE,
            event_id TEXT, checked_in_at \(db.bigint) NOT NULL, gate TEXT, scanner TEXT, recorded_at \(db.bigint) NOT NULL);
        CREATE INDEX checkins_event ON checkins (event_id);
        ALTER TABLE passes ADD COLUMN checked_in_at \(db.bigint);
        """
    }
}

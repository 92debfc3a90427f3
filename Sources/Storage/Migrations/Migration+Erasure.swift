// Version 18: deleting events and erasing attendees' data.
//
// - `events.deleting_at`: when an admin deleted the event. Its tickets are voided and a re-push
//   job tells every phone holding one; the event is gone from the organizers' lists and pages at
//   once, while phones keep being served the voided pass. The retention sweep removes the event
//   and everything of it once every phone registered for one of its passes was told and served
//   the voided pass, or `DELETED_EVENT_GRACE` after the deletion, whichever comes first. Indexed
//   (partial: only deleting events), so the sweep's look-up reads a handful of rows.
// - `events.erased_at`: when the attendees' names, emails, seats, external ids and extra fields of
//   the event's tickets were erased (by hand or `ERASE_AFTER_DAYS` after the event ended). The
//   counts stay; no ticket can be issued for an erased event.

extension Migration {
    static let erasure = Migration(version: 18, name: "deleting events and erasing attendee data") { db in
        """
        ALTER TABLE events ADD COLUMN deleting_at \(db.bigint);
        ALTER TABLE events ADD COLUMN erased_at \(db.bigint);
        CREATE INDEX events_deleting ON events (deleting_at) WHERE deleting_at IS NOT NULL;
        """
    }
}

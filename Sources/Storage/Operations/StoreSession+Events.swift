public import Foundation

extension EventOperations {
    static let eventColumnNames = [
        "id", "name", "venue", "starts_at", "ends_at", "time_zone", "template", "revision", "created_at", "updated_at", "archived_at", "language", "design",
        "deleting_at", "erased_at", "announcement_id", "announcement", "announcement_notify",
    ]
    static let eventColumns = SQLQuery(unsafeRaw: eventColumnNames.joined(separator: ", "))

    /// Creates an event with a random opaque id.
    public func createEvent(_ event: NewEvent, now: Date) throws -> Event {
        try transaction {
            let revision = try nextRevision()
            guard let row = try first("""
                INSERT INTO events (id, name, venue, starts_at, ends_at, time_zone, template, revision, created_at, updated_at, search_text,
                    language)
                VALUES (\(RandomIdentifier.make()), \(event.name), \(event.venue), \(event.startsAt.storageMillis),
                    \(event.endsAt?.storageMillis), \(event.timeZone), \(event.template), \(revision),
                    \(now.storageMillis), \(now.storageMillis), \(SearchText.event(name: event.name, venue: event.venue)), \(event.language))
                RETURNING \(Self.eventColumns)
                """)
            else { throw StorageError(.backend, "insert returned no row") }
            return try Event(row: row)
        }
    }

    public func event(id: String) throws -> Event? {
        try first("SELECT \(Self.eventColumns) FROM events WHERE id = \(id)").map(Event.init(row:))
    }

    /// The event locked for the caller's transaction (`FOR UPDATE`; SQLite's writer), or nil.
    public func lockedEvent(id: String) throws -> Event? {
        try first("SELECT \(Self.eventColumns) FROM events WHERE id = \(id)\(unsafeRaw: forUpdate)").map(Event.init(row:))
    }

    /// Updates an event and, in the same transaction, creates the re-push job for its passes.
    /// A change that alters nothing returns the event and no job. `.notFound` if it does not exist.
    public func updateEvent(id: String, change: EventChange, now: Date) throws -> (event: Event, job: Job?) {
        try updateEvent(id: id, now: now) { _ in change }
    }

    /// Like `updateEvent(id:change:now:)`, with the change decided by `decide` from the event as it
    /// is inside the transaction, under its row lock: a rule checked there (the end not before the
    /// start) holds against concurrent edits. An error thrown by `decide` rolls back and is rethrown.
    public func updateEvent(id: String, now: Date, _ decide: (Event) throws -> EventChange) throws -> (event: Event, job: Job?) {
        try transaction {
            guard let current = try first("SELECT \(Self.eventColumns) FROM events WHERE id = \(id)\(unsafeRaw: forUpdate)")
                .map(Event.init(row:))
            else { throw StorageError(.notFound, "no such event") }
            let change = try decide(current)
            let target = current.applying(change)
            // Compare what is stored (milliseconds), not sub-millisecond Date differences.
            let sameLook = target.name == current.name && target.venue == current.venue
                && target.startsAt.storageMillis == current.startsAt.storageMillis
                && target.endsAt?.storageMillis == current.endsAt?.storageMillis
                && target.timeZone == current.timeZone && target.template == current.template && target.design == current.design
            let same = sameLook && target.announcement == current.announcement
            if same && target.language == current.language { return (current, nil) }
            if same {
                // The email's language is no part of the passes: no new revision, no re-push.
                guard let row = try first("""
                    UPDATE events SET language = \(target.language), updated_at = \(now.storageMillis) WHERE id = \(id)
                    RETURNING \(Self.eventColumns)
                    """)
                else { throw StorageError(.notFound, "no such event") }
                try session.webhooks.enqueueEventWebhook(.eventUpdated, eventID: id, now: now)
                return (try Event(row: row), nil)
            }
            let revision = try nextRevision()
            guard let row = try first("""
                UPDATE events SET name = \(target.name), venue = \(target.venue), starts_at = \(target.startsAt.storageMillis),
                    ends_at = \(target.endsAt?.storageMillis), time_zone = \(target.timeZone), template = \(target.template),
                    revision = \(revision), updated_at = \(now.storageMillis),
                    search_text = \(SearchText.event(name: target.name, venue: target.venue)), language = \(target.language),
                    design = \(target.design), announcement_id = \(target.announcement?.id), announcement = \(target.announcement?.message),
                    announcement_notify = \(target.announcement?.notify == true ? 1 : 0)
                WHERE id = \(id)
                RETURNING \(Self.eventColumns)
                """)
            else { throw StorageError(.notFound, "no such event") }
            // Google shows the event from its class: one class update, not one per ticket. A new
            // time or place is worth a notification; a new name or look is not.
            let moved = target.venue != current.venue || target.startsAt.storageMillis != current.startsAt.storageMillis
                || target.endsAt?.storageMillis != current.endsAt?.storageMillis || target.timeZone != current.timeZone
            try session.google.enqueueGoogleClass(eventID: id, notify: moved, now: now)
            // One webhook for the event; its tickets' new revisions are no change of theirs.
            try session.webhooks.enqueueEventWebhook(.eventUpdated, eventID: id, now: now)
            // Only active passes show an announcement: a change of it alone bumps those.
            let job = try session.jobs.createJob(kind: sameLook ? Job.announcementKind : Job.repushKind, eventID: id, now: now)
            return (try Event(row: row), job)
        }
    }

    /// Counts for an event's admin page, from its tallies: a few rows whatever the event's size.
    public func eventCounts(id: String) throws -> EventCounts {
        EventCounts(try session.reach.eventTally(eventID: id).total)
    }
}

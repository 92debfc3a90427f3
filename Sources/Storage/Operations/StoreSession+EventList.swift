public import Foundation

extension EventOperations {
    /// One page of events, newest first: by start time descending, then by id ascending (ids are
    /// unique, so the order is total and keyset paging after `position` never skips or repeats an
    /// event, whatever is inserted meanwhile).
    public func events(matching filter: EventFilter, after position: EventListPosition? = nil, limit: Int) throws -> [Event] {
        // A deleting event is gone for organizers; only phones still see its voided passes.
        var conditions: [SQLQuery] = ["deleting_at IS NULL"]
        if let search = filter.search {
            conditions.append("search_text LIKE \(SearchText.containsPattern(search)) ESCAPE '\\'")
        }
        if let from = filter.startsFrom { conditions.append("starts_at >= \(from.storageMillis)") }
        if let before = filter.startsBefore { conditions.append("starts_at < \(before.storageMillis)") }
        if let archived = filter.archived {
            conditions.append(archived ? "archived_at IS NOT NULL" : "archived_at IS NULL")
        }
        if let position {
            conditions.append("(starts_at < \(position.startsAtMillis) OR (starts_at = \(position.startsAtMillis) AND id > \(position.id)))")
        }
        let filterSQL: SQLQuery = "WHERE \(SQLQuery.joined(conditions, separator: " AND "))"
        return try execute("""
            SELECT \(Self.eventColumns) FROM events \(filterSQL)
            ORDER BY starts_at DESC, id LIMIT \(limit)
            """).map(Event.init(row:))
    }

    /// Archives (`archived: true`) or unarchives an event and returns it. Archiving an archived
    /// event keeps its first `archivedAt`; neither takes a revision or touches a pass.
    /// `.notFound` if it does not exist.
    ///
    /// Google Wallet shows an archived event's tickets as expired: archiving or unarchiving
    /// enqueues its objects (silently).
    public func setArchived(eventID: String, archived: Bool, now: Date) throws -> Event {
        try transaction {
            let wasArchived = try first("SELECT archived_at FROM events WHERE id = \(eventID)\(unsafeRaw: forUpdate)")
                .map { try $0.optionalInt64("archived_at") != nil }
            guard let wasArchived else { throw StorageError(.notFound, "no such event") }
            let value: SQLQuery = archived ? "COALESCE(archived_at, \(now.storageMillis))" : "NULL"
            guard let row = try first("UPDATE events SET archived_at = \(value) WHERE id = \(eventID) RETURNING \(Self.eventColumns)") else {
                throw StorageError(.notFound, "no such event")
            }
            if wasArchived != archived { try session.google.enqueueGoogleObjects(where: "p.event_id = \(eventID)", notify: false, now: now) }
            return try Event(row: row)
        }
    }
}

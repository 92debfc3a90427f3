public import Foundation

extension StoreSession {
    /// One page of events, newest first: by start time descending, then by id ascending (ids are
    /// unique, so the order is total and keyset paging after `position` never skips or repeats an
    /// event, whatever is inserted meanwhile).
    public func events(matching filter: EventFilter, after position: EventListPosition? = nil, limit: Int) throws -> [Event] {
        var conditions: [SQLQuery] = []
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
        let filterSQL: SQLQuery = conditions.isEmpty ? "" : "WHERE \(SQLQuery.joined(conditions, separator: " AND "))"
        return try execute("""
            SELECT \(Self.eventColumns) FROM events \(filterSQL)
            ORDER BY starts_at DESC, id LIMIT \(limit)
            """).map(Event.init(row:))
    }

    /// Archives (`archived: true`) or unarchives an event and returns it. Archiving an archived
    /// event keeps its first `archivedAt`; neither takes a revision or touches a pass.
    /// `.notFound` if it does not exist.
    public func setArchived(eventID: String, archived: Bool, now: Date) throws -> Event {
        let value: SQLQuery = archived ? "COALESCE(archived_at, \(now.storageMillis))" : "NULL"
        guard let row = try first("UPDATE events SET archived_at = \(value) WHERE id = \(eventID) RETURNING \(Self.eventColumns)") else {
            throw StorageError(.notFound, "no such event")
        }
        return try Event(row: row)
    }

    /// Whether the event exists and is archived.
    func isArchived(eventID: String) throws -> Bool {
        try first("SELECT 1 AS archived FROM events WHERE id = \(eventID) AND archived_at IS NOT NULL") != nil
    }

    /// Counts for several events in one query: tickets, cancelled tickets, distinct registered
    /// devices, and the outbox rows (pending, failed) of the push tokens of their registrations. A
    /// token registered for passes of several events counts for each. Events without passes are
    /// absent from the result.
    public func eventCounts(ids: [String]) throws -> [String: EventCounts] {
        guard !ids.isEmpty else { return [:] }
        let list = SQLQuery.list(ids)
        let rows = try execute("""
            SELECT event_id, 'tickets' AS kind, count(*) AS n FROM passes WHERE event_id IN \(list) GROUP BY event_id
            UNION ALL
            SELECT event_id, 'voided' AS kind, count(*) AS n FROM passes WHERE event_id IN \(list) AND status = 'voided' GROUP BY event_id
            UNION ALL
            SELECT p.event_id, 'devices' AS kind, count(DISTINCT r.device_library_identifier) AS n FROM passes p
                JOIN registrations r ON r.pass_type_identifier = p.pass_type_identifier AND r.serial_number = p.serial_number
                WHERE p.event_id IN \(list) GROUP BY p.event_id
            UNION ALL
            SELECT pushes.event_id, pushes.state AS kind, count(*) AS n FROM (
                SELECT DISTINCT p.event_id, o.id, o.state FROM push_outbox o
                JOIN devices d ON d.push_token = o.push_token
                JOIN registrations r ON r.device_library_identifier = d.device_library_identifier
                    AND r.pass_type_identifier = o.pass_type_identifier
                JOIN passes p ON p.pass_type_identifier = r.pass_type_identifier AND p.serial_number = r.serial_number
                WHERE p.event_id IN \(list)) pushes
                GROUP BY pushes.event_id, pushes.state
            """)
        var counts: [String: EventCounts] = [:]
        for row in rows {
            let id = try row.string("event_id")
            var entry = counts[id] ?? EventCounts.zero
            let n = try row.int("n")
            switch try row.string("kind") {
            case "tickets": entry.tickets = n
            case "voided": entry.voided = n
            case "devices": entry.registeredDevices = n
            case "pending": entry.pendingPushes = n
            case "failed": entry.failedPushes = n
            default: break
            }
            counts[id] = entry
        }
        return counts
    }
}

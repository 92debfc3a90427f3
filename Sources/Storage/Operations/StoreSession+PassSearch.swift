import Foundation

extension PassOperations {
    /// Rows a search reads in id order before it asks the search index for the rest (below).
    public static let searchWindow = 2_000

    /// One page of an event's passes matching `filter`, in id (issue) order, after pass id `after`.
    ///
    /// Runs on the event's rows only (`passes_event`, `passes_event_status`). A search is a
    /// substring `LIKE` over `search_text`, in two steps: first the next `searchWindow` passes of
    /// the event in id order (a term that matches many tickets fills the page here, as cheap as no
    /// search); then, only if the page is not full, the passes after that window through the
    /// trigram index of migration 13 (PostgreSQL's `pg_trgm` GIN index, chosen by the planner;
    /// SQLite's `passes_search` FTS5 table), so a term that matches few tickets no longer reads
    /// every ticket of the event. Without the index (PostgreSQL without `pg_trgm`; on SQLite a
    /// term holding `%`, `_` or `\`) the second step reads the rest of the event.
    public func passes(eventID: String, matching filter: PassFilter, after: Int64 = 0, limit: Int) throws -> [StoredPass] {
        var conditions: [SQLQuery] = []
        if let status = filter.status { conditions.append("status = \(status.rawValue)") }
        if let search = filter.search {
            conditions.append("search_text LIKE \(SearchText.containsPattern(search)) ESCAPE '\\'")
        }
        if let checkedIn = filter.checkedIn {
            conditions.append(checkedIn ? "checked_in_at IS NOT NULL" : "checked_in_at IS NULL")
        }
        if let order = filter.orderID { conditions.append("order_id = \(order)") }
        if let since = filter.modifiedSince {
            // `modified_at` is whole seconds: the first whole second at or after the instant.
            conditions.append("modified_at >= \(Int64(since.timeIntervalSince1970.rounded(.up)))")
        }
        let event: [SQLQuery] = ["event_id = \(eventID)", "id > \(after)"]
        func page(_ extra: [SQLQuery], limit: Int) throws -> [StoredPass] {
            try execute("""
                SELECT \(StoredPass.columns) FROM passes WHERE \(SQLQuery.joined(event + conditions + extra, separator: " AND "))
                ORDER BY id LIMIT \(limit)
                """).map(StoredPass.init(row:))
        }
        guard let search = filter.search, limit > 0 else { return try page([], limit: limit) }
        // The window as a subquery with its own LIMIT: planned without the search (an id-ordered
        // read of the event's index that stops when the page is full), whatever plan a prepared
        // statement's generic plan would pick for the pattern.
        let early = try execute("""
            SELECT \(StoredPass.columns) FROM (
                SELECT * FROM passes WHERE \(SQLQuery.joined(event, separator: " AND ")) ORDER BY id LIMIT \(Self.searchWindow)
            ) w WHERE \(SQLQuery.joined(conditions, separator: " AND "))
            ORDER BY id LIMIT \(limit)
            """).map(StoredPass.init(row:))
        guard early.count < limit,
              let windowEnd = try first("""
                  SELECT id FROM passes WHERE \(SQLQuery.joined(event, separator: " AND ")) ORDER BY id LIMIT 1 OFFSET \(Self.searchWindow - 1)
                  """)?.int64("id")
        else { return early }
        var rest: [SQLQuery] = ["id > \(windowEnd)"]
        if dialect == .sqlite, !search.contains(where: { "%_\\".contains($0) }) {
            // FTS5 serves only a LIKE without ESCAPE; `passes_search` checks the pattern against
            // the text itself, and the condition above checks it again as every search does.
            rest.append("id IN (SELECT rowid FROM passes_search WHERE search_text LIKE \(SearchText.containsPattern(search)))")
        }
        return early + (try page(rest, limit: limit - early.count))
    }
}

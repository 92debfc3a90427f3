import Foundation

extension StoreSession {
    /// One page of an event's passes matching `filter`, in id (issue) order, after pass id `after`.
    ///
    /// Runs on the event's rows only (`passes_event`, `passes_event_status`); a search is a
    /// substring `LIKE` over `search_text`, which no B-tree index serves, so it reads the event's
    /// passes until the page is full (docs/admin.md has the cost measured on 100,000 passes).
    public func passes(eventID: String, matching filter: PassFilter, after: Int64 = 0, limit: Int) throws -> [StoredPass] {
        var conditions: [SQLQuery] = ["event_id = \(eventID)", "id > \(after)"]
        if let status = filter.status { conditions.append("status = \(status.rawValue)") }
        if let search = filter.search {
            conditions.append("search_text LIKE \(SearchText.containsPattern(search)) ESCAPE '\\'")
        }
        if let since = filter.modifiedSince {
            // `modified_at` is whole seconds: the first whole second at or after the instant.
            conditions.append("modified_at >= \(Int64(since.timeIntervalSince1970.rounded(.up)))")
        }
        return try execute("""
            SELECT \(StoredPass.columns) FROM passes WHERE \(SQLQuery.joined(conditions, separator: " AND "))
            ORDER BY id LIMIT \(limit)
            """).map(StoredPass.init(row:))
    }
}

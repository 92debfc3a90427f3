extension Router.Route {
    /// The 400 for a query that names a parameter this route does not declare, or names one twice;
    /// nil when the query is acceptable (or the route declares nothing). A misspelt filter must not
    /// be silently ignored, so the answer names the parameter and lists the ones the route takes.
    func queryError(_ items: [(name: String, value: String)]) -> HTTPError? {
        guard let query else { return nil }
        let takes = query.isEmpty ? "This route takes no query parameters." : "This route takes: \(query.sorted().joined(separator: ", "))."
        if let unknown = items.first(where: { !query.contains($0.name) }) {
            return HTTPError.badRequest(
                "Unknown query parameter '\(HTTPError.quoting(unknown.name))'. \(takes)", code: "unknown_query_parameter"
            )
        }
        var seen = Set<String>()
        if let repeated = items.first(where: { !seen.insert($0.name).inserted }) {
            return HTTPError.badRequest(
                "The query parameter '\(repeated.name)' is given more than once.", code: "repeated_query_parameter"
            )
        }
        return nil
    }
}

extension Router.Route {
    /// The 400 for a query that names a parameter this route does not declare, or names one twice;
    /// nil when the query is acceptable (or the route declares nothing). A misspelt filter must not
    /// be silently ignored, so the answer names the parameter and lists the ones the route takes.
    func queryError(_ items: [(name: String, value: String)]) -> HTTPError? {
        guard let query else { return nil }
        let takes = query.isEmpty ? "This route takes no query parameters." : "This route takes: \(query.sorted().joined(separator: ", "))."
        if let unknown = items.first(where: { !query.contains($0.name) }) {
            return HTTPError.badRequest(
                "Unknown query parameter '\(Self.shown(unknown.name))'. \(takes)", code: "unknown_query_parameter"
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

    /// A client's parameter name as quoted back: at most 64 characters, control characters as `?`.
    private static func shown(_ name: String) -> String {
        let scalars = name.unicodeScalars.prefix(64).map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : Character($0) }
        return String(scalars) + (name.unicodeScalars.count > 64 ? "…" : "")
    }
}

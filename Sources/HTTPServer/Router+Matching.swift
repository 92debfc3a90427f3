extension Router {
    /// The outcome of looking up a request.
    enum Match {
        /// A handler, with decoded path parameters.
        case found(Route, parameters: [String: String])
        /// The path exists but not for this method; `allow` is the `Allow` header value.
        case methodNotAllowed(allow: String)
        case notFound
        /// A segment has a malformed percent-escape or is not UTF-8.
        case badPath
    }

    /// Resolves `rawPath` (not yet percent-decoded, no query) for `method`.
    func match(method: HTTPMethod, rawPath: String) -> Match {
        guard rawPath.hasPrefix("/") else { return .notFound }
        var decoded: [String] = []
        for raw in rawPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let segment = PercentDecoding.decode(raw) else { return .badPath }
            decoded.append(segment)
        }
        // Routes are looked at in place (by index): every request scans the table, and copying
        // each route retained and released all of its fields.
        var candidates: [(index: Int, parameters: [String: String])] = []
        for index in table.indices where table[index].segments.count == decoded.count {
            if let parameters = Self.bind(table[index].segments, to: decoded) {
                candidates.append((index, parameters))
            }
        }
        guard !candidates.isEmpty else { return .notFound }
        // The most specific pattern wins: compare literal-vs-parameter position by position.
        candidates.sort { Self.isMoreSpecific(table[$0.index].segments, than: table[$1.index].segments) }
        if let exact = candidates.first(where: { table[$0.index].method == method }) {
            return .found(table[exact.index], parameters: exact.parameters)
        }
        if method == .HEAD, let get = candidates.first(where: { table[$0.index].method == .GET }) {
            return .found(table[get.index], parameters: get.parameters)
        }
        var methods = Set(candidates.map { table[$0.index].method })
        if methods.contains(.GET) { methods.insert(.HEAD) }
        let allow = methods.sorted { $0.sortKey < $1.sortKey }.map(\.rawValue).joined(separator: ", ")
        return .methodNotAllowed(allow: allow)
    }

    /// Parameters when `segments` matches `path`; parameters never match an empty segment.
    private static func bind(_ segments: [Segment], to path: [String]) -> [String: String]? {
        guard segments.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(segments, path) {
            switch segment {
            case .literal(let literal):
                guard literal == value else { return nil }
            case .parameter(let name):
                guard !value.isEmpty else { return nil }
                parameters[name] = value
            }
        }
        return parameters
    }

    private static func isMoreSpecific(_ lhs: [Segment], than rhs: [Segment]) -> Bool {
        for (left, right) in zip(lhs, rhs) {
            switch (left, right) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }
}

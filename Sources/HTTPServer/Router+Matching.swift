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
        var candidates: [(route: Route, parameters: [String: String])] = []
        for route in table {
            if let parameters = Self.bind(route.segments, to: decoded) {
                candidates.append((route, parameters))
            }
        }
        guard !candidates.isEmpty else { return .notFound }
        // The most specific pattern wins: compare literal-vs-parameter position by position.
        candidates.sort { Self.isMoreSpecific($0.route.segments, than: $1.route.segments) }
        if let exact = candidates.first(where: { $0.route.method == method }) {
            return .found(exact.route, parameters: exact.parameters)
        }
        if method == .HEAD, let get = candidates.first(where: { $0.route.method == .GET }) {
            return .found(get.route, parameters: get.parameters)
        }
        var methods = Set(candidates.map(\.route.method))
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

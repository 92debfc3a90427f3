/// A route handler: runs synchronously on a libmicrohttpd worker thread and may block (database).
/// Throw `HTTPError` (or any `RenderableError`) for a client-facing error; any other error becomes a
/// logged, generic 500.
public typealias Handler = @Sendable (Request) throws -> Response

/// A check that runs as soon as a request's headers have arrived, before its body is read: throw
/// an `HTTPError` (for example 401) to answer at once without buffering the body. The request it
/// gets has an empty body. A handler registered with a preflight only ever runs after it passed.
public typealias Preflight = @Sendable (Request) throws -> Void

/// Maps method and path pattern to handlers. Patterns are `/`-separated literal segments and
/// `:name` parameters, e.g. `/v1/passes/:passTypeIdentifier/:serialNumber`.
///
/// Matching works on the raw (still percent-encoded) segments and decodes afterwards, so `%2F`
/// stays inside its segment. Literal segments beat parameters at the same position. A path that
/// matches but with another method is answered 405 with `Allow`; every GET route also answers HEAD.
public struct Router: Sendable {
    /// One registered route.
    struct Route: Sendable {
        var method: HTTPMethod
        var pattern: String
        var segments: [Segment]
        var maxBodySize: Int?
        /// The query parameters the route takes; nil takes any (see `add`).
        var query: Set<String>?
        var preflight: Preflight?
        var handler: Handler
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    private(set) var table: [Route] = []

    /// An empty router: every request is answered 404.
    public init() {}

    /// Registers `handler` for `method` and `pattern`; `maxBodySize` overrides the server's body
    /// limit for this route, and `preflight` runs before the body is read. `query` declares the
    /// query parameters the route takes: a request naming any other, or naming one twice, is
    /// answered 400 once its preflight passed, before the body is read (nil: anything goes).
    /// Registering the same method and pattern again replaces the route.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, maxBodySize: Int? = nil, query: Set<String>? = nil, preflight: Preflight? = nil,
        _ handler: @escaping Handler
    ) {
        let route = Route(
            method: method, pattern: pattern, segments: Self.parse(pattern), maxBodySize: maxBodySize, query: query,
            preflight: preflight, handler: handler
        )
        if let index = table.firstIndex(where: { $0.method == method && $0.segments == route.segments }) {
            table[index] = route
        } else {
            table.append(route)
        }
    }

    /// Registers a `GET` route; see `add(_:_:maxBodySize:query:preflight:_:)`.
    public mutating func get(
        _ pattern: String, maxBodySize: Int? = nil, query: Set<String>? = nil, preflight: Preflight? = nil, _ handler: @escaping Handler
    ) {
        add(.GET, pattern, maxBodySize: maxBodySize, query: query, preflight: preflight, handler)
    }

    /// Registers a `POST` route; see `add(_:_:maxBodySize:query:preflight:_:)`.
    public mutating func post(
        _ pattern: String, maxBodySize: Int? = nil, query: Set<String>? = nil, preflight: Preflight? = nil, _ handler: @escaping Handler
    ) {
        add(.POST, pattern, maxBodySize: maxBodySize, query: query, preflight: preflight, handler)
    }

    /// Registers a `PUT` route; see `add(_:_:maxBodySize:query:preflight:_:)`.
    public mutating func put(
        _ pattern: String, maxBodySize: Int? = nil, query: Set<String>? = nil, preflight: Preflight? = nil, _ handler: @escaping Handler
    ) {
        add(.PUT, pattern, maxBodySize: maxBodySize, query: query, preflight: preflight, handler)
    }

    /// Registers a `PATCH` route; see `add(_:_:maxBodySize:query:preflight:_:)`.
    public mutating func patch(
        _ pattern: String, maxBodySize: Int? = nil, query: Set<String>? = nil, preflight: Preflight? = nil, _ handler: @escaping Handler
    ) {
        add(.PATCH, pattern, maxBodySize: maxBodySize, query: query, preflight: preflight, handler)
    }

    /// Registers a `DELETE` route; see `add(_:_:maxBodySize:query:preflight:_:)`.
    public mutating func delete(
        _ pattern: String, maxBodySize: Int? = nil, query: Set<String>? = nil, preflight: Preflight? = nil, _ handler: @escaping Handler
    ) {
        add(.DELETE, pattern, maxBodySize: maxBodySize, query: query, preflight: preflight, handler)
    }

    /// Every registered route in registration order (HEAD for GET routes is implicit, not listed).
    public var routes: [(method: HTTPMethod, pattern: String)] {
        table.map { (method: $0.method, pattern: $0.pattern) }
    }

    /// Splits a pattern into segments; a leading `/` is optional.
    static func parse(_ pattern: String) -> [Segment] {
        let trimmed = pattern.hasPrefix("/") ? pattern.dropFirst() : Substring(pattern)
        return trimmed.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix(":") && part.count > 1 ? .parameter(String(part.dropFirst())) : .literal(String(part))
        }
    }
}

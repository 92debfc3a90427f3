/// One HTTP request as handed to a route handler. The body is complete (within the route's limit).
public struct Request: Sendable {
    /// The method as sent (a HEAD request reaching a GET route keeps `HEAD`).
    public var method: HTTPMethod
    /// The percent-decoded path without the query (`%2F` becomes `/`; routing used the raw segments).
    public var path: String
    /// Decoded query parameters (`+` is a space, `%xx` decoded); the first value of a name wins.
    public var query: [String: String]
    /// Every decoded query parameter, in order, including repeated names.
    public var queryItems: [(name: String, value: String)]
    /// Request headers in arrival order; names compare case-insensitively.
    public var headers: HTTPHeaders
    /// The complete body (empty when none was sent).
    public var body: [UInt8]
    /// The client's IP address as seen on the socket (a reverse proxy's address behind one).
    public var peerAddress: String
    /// The client's IP address: the peer, or behind a trusted proxy the address it forwarded
    /// (see `ClientAddress`). Rate limits and the access log use this one.
    public var clientAddress: String
    /// The request id echoed in `X-Request-ID` and in every log line about this request.
    public var requestID: String
    /// Route path parameters (`:name` segments), percent-decoded.
    public var parameters: [String: String]

    /// A request value; `query` is derived from `queryItems` (first value wins), and the client
    /// address defaults to the peer address.
    public init(
        method: HTTPMethod = .GET,
        path: String = "/",
        queryItems: [(name: String, value: String)] = [],
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        peerAddress: String = "127.0.0.1",
        clientAddress: String? = nil,
        requestID: String = "",
        parameters: [String: String] = [:]
    ) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        var query: [String: String] = [:]
        for item in queryItems where query[item.name] == nil {
            query[item.name] = item.value
        }
        self.query = query
        self.headers = headers
        self.body = body
        self.peerAddress = peerAddress
        self.clientAddress = clientAddress ?? peerAddress
        self.requestID = requestID
        self.parameters = parameters
    }

    /// The body as UTF-8 text, or nil when it is not valid UTF-8.
    public var bodyText: String? { String(validating: body, as: UTF8.self) }
}

/// One HTTP request: any method, header fields in order, the body's bytes, and how long the whole
/// exchange (connecting included) may take.
public struct HTTPRequest: Sendable {
    /// The method token as sent (`GET`, `POST`, `PATCH` …).
    public var method: String
    /// An absolute `http://` or `https://` URL.
    public var url: String
    /// Header fields in the order they are sent. libcurl adds `Host`, `Content-Length` and
    /// `Accept-Encoding` itself; `Expect: 100-continue` is never sent.
    public var headers: [(name: String, value: String)]
    /// Sent as it is; empty sends no body (and `Content-Length: 0` for methods other than GET and HEAD).
    public var body: [UInt8]
    /// The most the exchange may take, from the first connection attempt to the last byte.
    public var timeout: Duration
    /// When set, the only addresses the request may connect to: the URL's host is not resolved
    /// again (libcurl is given these, CURLOPT_RESOLVE), no proxy is used, and a socket to any other
    /// address is refused (`.addressNotAllowed`). For callers that resolve and check a host
    /// themselves (`HTTPClient.resolve`) and must connect to what they checked.
    public var pinnedAddresses: [IPAddress]? = nil

    public init(
        method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

import Foundation

/// Settings for `HTTPServer`. Defaults are safe for production behind a reverse proxy.
public struct ServerConfiguration: Sendable {
    /// Numeric IPv4/IPv6 address (or `localhost`) to bind; loopback by default.
    public var host: String
    /// TCP port; 0 picks a free port (read it back from `HTTPServer.port`).
    public var port: Int
    /// Default request body limit in bytes (routes may override); larger bodies get 413.
    public var maxBodySize: Int
    /// The largest request head served, in bytes: the request line and every header line
    /// together. A larger one is answered 431 (see `connectionMemoryLimit` for what each
    /// connection reserves for it).
    public var maxHeaderSize: Int
    /// The most header lines a request may carry; more are answered 431.
    public var maxHeaderFields: Int
    /// The most cookies (name=value pairs of the `Cookie` header) a request may carry; more are
    /// answered 431. Browsers keep at most 180 per domain.
    public var maxCookies: Int
    /// The most query parameters a request target may carry; more are answered 414.
    public var maxQueryParameters: Int
    /// Idle time after which a connection (including one stalled mid-request) is closed.
    public var connectionTimeout: Duration
    /// How long a whole request (request line, headers and body) may take to arrive, counted from
    /// the moment the connection is ready for it (accepted, or the previous response sent). A
    /// client that trickles bytes, never idle for long, is still cut off after this.
    public var requestTimeout: Duration
    /// Maximum simultaneous connections, trusted proxies included; further connections are
    /// accepted and closed at once (the client sees the connection closed before any answer).
    public var maxConnections: Int
    /// Maximum simultaneous connections from one IP address; further ones are closed at once.
    /// Trusted proxies are exempt (they carry many clients); limit clients at the proxy.
    public var maxConnectionsPerClient: Int
    /// Reverse proxies whose `X-Forwarded-For` is believed (see `ClientAddress`); loopback by default.
    public var trustedProxies: [AddressRange]
    /// Worker threads; handlers run on them and may block, so this bounds concurrent handlers.
    public var threads: Int
    /// How long `shutdown()` waits for in-flight requests before closing them.
    public var drainTimeout: Duration
    /// The listen(2) backlog.
    public var listenBacklog: Int

    /// The defaults suit production behind a reverse proxy; tests usually set `port: 0`.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        maxBodySize: Int = 1 << 20,
        maxHeaderSize: Int = 16 << 10,
        maxHeaderFields: Int = 100,
        maxCookies: Int = 200,
        maxQueryParameters: Int = 100,
        connectionTimeout: Duration = .seconds(30),
        requestTimeout: Duration = .seconds(30),
        maxConnections: Int = 1024,
        maxConnectionsPerClient: Int = 32,
        trustedProxies: [AddressRange] = AddressRange.loopback,
        threads: Int = ServerConfiguration.defaultThreads,
        drainTimeout: Duration = .seconds(10),
        listenBacklog: Int = 511
    ) {
        self.host = host
        self.port = port
        self.maxBodySize = maxBodySize
        self.maxHeaderSize = maxHeaderSize
        self.maxHeaderFields = maxHeaderFields
        self.maxCookies = maxCookies
        self.maxQueryParameters = maxQueryParameters
        self.connectionTimeout = connectionTimeout
        self.requestTimeout = requestTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerClient = maxConnectionsPerClient
        self.trustedProxies = trustedProxies
        self.threads = threads
        self.drainTimeout = drainTimeout
        self.listenBacklog = listenBacklog
    }

    /// Four threads per core: handlers block on the database, so more threads than cores pays off.
    public static var defaultThreads: Int {
        max(4, 4 * ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Every problem at once, so an operator fixes them in one go.
    func validate() throws(HTTPServerError) {
        var problems: [String] = []
        if !(0...65535).contains(port) { problems.append("port must be 0...65535 (got \(port))") }
        if maxBodySize < 0 { problems.append("maxBodySize must not be negative (got \(maxBodySize))") }
        if !(4096...(1 << 20)).contains(maxHeaderSize) {
            problems.append("maxHeaderSize must be 4096...1048576 bytes (got \(maxHeaderSize))")
        }
        if !(1...10_000).contains(maxHeaderFields) { problems.append("maxHeaderFields must be 1...10000 (got \(maxHeaderFields))") }
        if !(0...10_000).contains(maxCookies) { problems.append("maxCookies must be 0...10000 (got \(maxCookies))") }
        if !(0...10_000).contains(maxQueryParameters) {
            problems.append("maxQueryParameters must be 0...10000 (got \(maxQueryParameters))")
        }
        if connectionTimeout < .seconds(1) { problems.append("connectionTimeout must be at least 1 s") }
        if requestTimeout < .milliseconds(100) { problems.append("requestTimeout must be at least 100 ms") }
        if !(1...1_000_000).contains(maxConnections) { problems.append("maxConnections must be 1...1000000") }
        if !(1...1_000_000).contains(maxConnectionsPerClient) { problems.append("maxConnectionsPerClient must be 1...1000000") }
        if !(1...1024).contains(threads) { problems.append("threads must be 1...1024 (got \(threads))") }
        if drainTimeout < .zero { problems.append("drainTimeout must not be negative") }
        if !(1...65535).contains(listenBacklog) { problems.append("listenBacklog must be 1...65535") }
        guard problems.isEmpty else {
            throw HTTPServerError(code: .invalidConfiguration, message: problems.joined(separator: "; "))
        }
    }

    /// libmicrohttpd's memory pool per connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`), sized so
    /// that every request head within the limits fits whole, with room left for the response
    /// headers. libmicrohttpd 0.9.75 keeps the head in the pool as it arrived, adds an entry per
    /// header line, per query argument and per cookie, and a copy of the `Cookie` value; a head
    /// that outgrows the pool never reaches the server's code. Hence twice the head (the head and
    /// at most its cookie copy) plus an entry for each field, cookie and query parameter allowed,
    /// plus `responseReserve`: 65 KiB at the defaults.
    var connectionMemoryLimit: Int {
        2 * maxHeaderSize + (maxHeaderFields + maxCookies + maxQueryParameters) * Self.poolEntrySize + Self.responseReserve
    }

    /// Bytes of libmicrohttpd 0.9.75's pool per header, cookie or query-argument entry: a 56-byte
    /// record, allocated in steps of 16 bytes (measured: 475 one-byte cookies fill a 32 KiB pool).
    static let poolEntrySize = 64
    /// Pool bytes kept for the status line and response headers.
    static let responseReserve = 8 << 10

    /// Whole seconds for libmicrohttpd, rounded up so a sub-second value never means "no timeout".
    var connectionTimeoutSeconds: Int {
        let (seconds, attoseconds) = connectionTimeout.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}

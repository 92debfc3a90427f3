/// Per-request state, created in libmicrohttpd's URI callback and released in its completion
/// callback. libmicrohttpd calls back for one connection on one worker thread at a time, so this
/// class is only ever touched by one thread at once and needs no lock; it crosses the C boundary
/// as an `Unmanaged` pointer in `*con_cls`, never as a Swift value shared between threads.
final class RequestContext {
    /// The request target exactly as received (raw path plus query).
    let rawTarget: String
    let startedAt = ContinuousClock.now

    /// Headers have been read and the route resolved (the first access-handler call happened).
    var prepared = false
    /// A response was queued (or the connection closed on purpose); the access log line is written.
    var responded = false

    var method = HTTPMethod.GET
    var rawPath = "/"
    var path = "/"
    var queryItems: [(name: String, value: String)] = []
    var headers = HTTPHeaders()
    var peerAddress = "unknown"
    var requestID = ""

    var route: Router.Route?
    var parameters: [String: String] = [:]
    var bodyLimit = 0
    var body: [UInt8] = []
    /// Bytes received beyond `bodyLimit` (chunked uploads); non-zero means the answer is 413.
    var overflow = 0
    /// An error decided while preparing, answered once the (empty) request has been read.
    var pending: Response?
    /// Why the handler answered 5xx (a rendered error's description), for the access log line.
    var failure: String?

    init(rawTarget: String) {
        self.rawTarget = rawTarget
    }

    /// The path as it goes into the access log: raw (already log-safe), and with the value of any
    /// parameter whose name contains "token" cut to four characters, so download links stay secret.
    var loggedPath: String {
        guard let route, route.segments.contains(where: { if case .parameter(let name) = $0 { Self.isSecret(name) } else { false } })
        else { return String(rawPath.prefix(512)) }
        let raw = rawPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var parts: [String] = []
        for (segment, value) in zip(route.segments, raw) {
            if case .parameter(let name) = segment, Self.isSecret(name) {
                parts.append(value.prefix(4) + "…")
            } else {
                parts.append(String(value))
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func isSecret(_ name: String) -> Bool {
        name.lowercased().contains("token")
    }
}

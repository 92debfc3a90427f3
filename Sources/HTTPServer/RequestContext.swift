/// Per-request state, created in libmicrohttpd's URI callback and released in its completion
/// callback. libmicrohttpd calls back for one connection on one worker thread at a time, so this
/// class is only ever touched by one thread at once and needs no lock; it crosses the C boundary
/// as an `Unmanaged` pointer in `*con_cls`, never as a Swift value shared between threads.
final class RequestContext {
    /// The request target exactly as received (raw path plus query).
    let rawTarget: String
    /// Its length in bytes as libmicrohttpd saw it (up to a NUL, if it holds one), and where it
    /// lay in libmicrohttpd's buffer (see `RequestHead`).
    var rawTargetLength = 0
    var rawTargetAddress: UInt = 0
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
    var clientAddress = "unknown"
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
}

/// Per-request state, created in libmicrohttpd's first access-handler call and released in its
/// completion callback (or when the connection closes), owned by the connection's
/// `ConnectionContext`. libmicrohttpd calls back for one connection on one worker thread at a
/// time, so this class is only ever touched by one thread at once and needs no lock; it is never
/// shared between threads as a Swift value.
final class RequestContext {
    /// The request target exactly as received (raw path plus query).
    let rawTarget: String
    /// Its length in bytes as libmicrohttpd saw it (up to a NUL, if it holds one), and where it
    /// lay in libmicrohttpd's buffer (see `RequestHead`); 0 when the URI callback did not see it.
    let rawTargetLength: Int
    let rawTargetAddress: UInt
    let startedAt = ContinuousClock.now

    /// Headers have been read and the route resolved (the first access-handler call has run).
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
    /// The refusal of a head over the limits, kept in case libmicrohttpd cannot send it
    /// (`ServerCore.resendHeadRefusal`).
    var headRefusal: HTTPError?
    /// Why the handler answered 5xx (a rendered error's description), for the access log line.
    var failure: String?

    init(target: ConnectionContext.RawTarget) {
        rawTarget = target.text
        rawTargetLength = target.length
        rawTargetAddress = target.address
    }
}

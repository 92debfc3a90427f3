import CMicroHTTPD
import Logging
import Synchronization

/// What every libmicrohttpd worker thread shares: the router, settings, logger, the connection
/// table and two atomics.
/// Passed to the C callbacks as an unretained `Unmanaged` pointer; `HTTPServer` keeps it alive for
/// longer than the daemon runs.
final class ServerCore: Sendable {
    let router: Router
    let configuration: ServerConfiguration
    let logger: Logger
    /// Per-client connection counts and request deadlines.
    let connections: ConnectionRegistry
    /// How paths appear in the access log (secrets cut short).
    let loggedPath: LoggedPath
    /// Hears about every answered request (for metrics).
    let observer: RequestObserver?
    /// Requests between the access handler's first call and their completion, or the close of their
    /// connection if libmicrohttpd never completes them (drained by `shutdown()`).
    let inFlight = Atomic<Int>(0)
    /// Set once shutdown starts: responses then carry `Connection: close`.
    let draining = Atomic<Bool>(false)

    init(router: Router, configuration: ServerConfiguration, logger: Logger, observer: RequestObserver? = nil) {
        self.router = router
        self.configuration = configuration
        self.logger = logger
        connections = ConnectionRegistry(configuration: configuration, logger: logger)
        loggedPath = LoggedPath(routes: router.table.map(\.segments))
        self.observer = observer
    }

    /// Headers that the server computes itself; a handler's values for them are ignored.
    static func isManagedHeader(_ name: String) -> Bool {
        HTTPHeaders.equalNames(name, "Content-Length") || HTTPHeaders.equalNames(name, "Transfer-Encoding")
    }

    /// Hands `response` to libmicrohttpd (which copies it, or pulls a streamed body while sending)
    /// and writes the access log line.
    func queue(_ response: Response, for context: RequestContext, on connection: OpaquePointer, close: Bool = false) -> MHD_Result {
        var response = response
        if !(200...599).contains(response.status) {
            logger.error("handler returned an invalid status", ["status": "\(response.status)", "request.id": context.requestID])
            response = HTTPError.internalError.response
        }
        response.headers.replace(name: RequestID.headerName, value: context.requestID)
        if close || draining.load(ordering: .relaxed) {
            response.headers.replace(name: "Connection", value: "close")
        }
        // HEAD gets the headers only: libmicrohttpd 0.9.75 would still send a chunked body's end.
        let stream = context.method == .HEAD ? nil : response.stream
        let created: OpaquePointer?
        if let stream {
            created = streamedResponse(stream, requestID: context.requestID)
        } else if !response.parts.isEmpty {
            created = Self.vectoredResponse(response.parts)
        } else {
            created = response.body.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        context.responded = true
        connections.answered(connection)
        guard let handle = created else {
            logger.error("cannot create response", ["request.id": context.requestID])
            return .NO
        }
        defer { MHD_destroy_response(handle) }
        for (name, value) in response.headers where !Self.isManagedHeader(name) {
            if MHD_add_response_header(handle, name, value) != .YES {
                logger.warning("response header rejected", ["header": name, "request.id": context.requestID])
            }
        }
        let result = MHD_queue_response(connection, UInt32(response.status), handle)
        if stream != nil {
            logAccess(context, status: response.status, bytes: 0, note: "streamed")
        } else {
            logAccess(context, status: response.status, bytes: context.method == .HEAD ? 0 : response.bodyCount)
        }
        return result
    }

    /// The one access log line per request, and the observer's report.
    func logAccess(_ context: RequestContext, status: Int, bytes: Int, note: String? = nil) {
        let duration = ContinuousClock.now - context.startedAt
        observer?(CompletedRequest(method: context.method, route: context.route?.pattern, status: status, duration: duration))
        // Every request passes here: build the line only when it is written.
        guard logger.level <= .info else { return }
        let milliseconds = duration / .milliseconds(1)
        // Pairs, not a dictionary: the line is written for every request.
        var fields: [(key: String, value: String)] = [
            ("method", context.method.rawValue),
            ("path", loggedPath.redact(context.rawPath)),
            ("status", String(status)),
            ("bytes", String(bytes)),
            ("duration_ms", String((milliseconds * 100).rounded() / 100)),
            ("request.id", context.requestID),
            ("peer", context.peerAddress),
            ("client", context.clientAddress),
        ]
        if let note { fields.append(("note", note)) }
        if let failure = context.failure { fields.append(("error", failure)) }
        logger.log(.info, "request", fields: fields)
    }
}

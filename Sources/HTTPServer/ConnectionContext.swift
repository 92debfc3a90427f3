import CMicroHTTPD

/// Per-connection state, kept in libmicrohttpd's socket context: created when the connection
/// starts and released when libmicrohttpd reports it closed, which it does for every connection
/// it started, whatever happened to the requests on it. Like `RequestContext`, it is only touched
/// by the connection's worker thread.
///
/// It owns the current request's `RequestContext`, so nothing a request holds can outlive its
/// connection. libmicrohttpd 0.9.75 pairs the completion callback with the access handler's first
/// call, but not with the URI callback: when it gives up on a request between the two (its pool
/// exhausted while splitting cookies or query arguments, or a second error while it answers a
/// first), it closes the connection without calling either. So the URI callback only notes the
/// raw target here; the request context and the in-flight count begin in the access handler's
/// first call and end in the completion callback, or at the latest when the connection closes.
/// A target still here when the connection closes (neither taken by the access handler nor
/// cleared by a completion) is a request libmicrohttpd dropped: it is answered then
/// (`ServerCore.answerAbandoned`).
final class ConnectionContext {
    /// Since when the connection has been waiting for a request (the request deadline); the
    /// connection table holds it too, for the sweep.
    let deadline = RequestDeadline(waitingSince: .now)
    /// The request target as the URI callback saw it, until the access handler takes it.
    var target: RawTarget?
    /// The request between the access handler's first call and its completion.
    private(set) var request: RequestContext?

    /// The request target exactly as received (raw path plus query), before libmicrohttpd splits
    /// off the query and writes NULs into its buffer.
    struct RawTarget {
        let text: String
        /// Its length in bytes as libmicrohttpd saw it (up to a NUL, if it holds one), and where
        /// it lay in libmicrohttpd's buffer (see `RequestHead`).
        let length: Int
        let address: UInt
    }

    /// The context of `connection`, or nil if libmicrohttpd has none for it.
    static func of(_ connection: OpaquePointer) -> ConnectionContext? {
        shim_MHD_socket_context(connection).map { Unmanaged<ConnectionContext>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Starts a request (the access handler's first call) and counts it in flight. A request still
    /// open here was never completed by libmicrohttpd; it is ended first.
    func begin(_ request: RequestContext, core: ServerCore) {
        end(core: core, completed: false)
        self.request = request
        core.inFlight.add(1, ordering: .relaxed)
    }

    /// Ends the current request, if any: released, and no longer in flight. `completed` says
    /// whether libmicrohttpd's completion callback ended it (false: the connection closed first).
    func end(core: ServerCore, completed: Bool, termination: MHD_RequestTerminationCode? = nil) {
        guard let request else { return }
        self.request = nil
        core.inFlight.subtract(1, ordering: .relaxed)
        if !completed {
            core.logger.debug("request ended without completion", ["request.id": request.requestID])
        } else if !request.responded {
            core.logger.debug("request aborted", ["request.id": request.requestID, "termination": "\(termination?.rawValue ?? 0)"])
        }
    }
}

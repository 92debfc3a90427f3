// Threading model
//
// libmicrohttpd owns every thread: a pool of `threads` workers (MHD_USE_INTERNAL_POLLING_THREAD
// with poll(2) and MHD_OPTION_THREAD_POOL_SIZE), all accepting from one listening socket. A
// connection stays on the worker that accepted it, and that worker calls our callbacks for it one
// at a time, so per-request state (`RequestContext`) needs no lock. Handlers run synchronously on
// the worker and may block (database calls): while one blocks, the other connections of that
// worker wait, so `threads` bounds how many handlers run at once. A handler runs only once its
// whole request has arrived, so slow clients hold a connection, never a worker. Nothing here
// touches Swift's cooperative thread pool. Shared state is immutable (`ServerCore`), atomic
// (in-flight count, draining flag) or behind a `Mutex` (the connection table, which a timer on
// its own dispatch queue sweeps for request deadlines); the lifecycle (`start`/`shutdown`) is
// guarded by a `Mutex`.
//
// Shutdown: `MHD_quiesce_daemon` stops accepting and we close the listening socket (new
// connections are refused), in-flight requests finish within `drainTimeout` (their responses
// carry `Connection: close`), then `MHD_stop_daemon` joins the workers and closes idle connections.

import CMicroHTTPD
import Dispatch
import Glibc
public import Logging
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd. Create, `start()`, and `shutdown()` once.
public final class HTTPServer: Sendable {
    let core: ServerCore
    private let state = Mutex(State())
    /// Entered by `start()`, left when shutdown has finished; `waitUntilStopped()` waits on it.
    private let stopped = DispatchGroup()

    private struct State {
        var phase = Phase.idle
        var port = 0
    }

    private enum Phase {
        case idle
        case running(Daemon)
        case stopping
        case stopped
    }

    /// The daemon handle.
    // Safe because the pointer is only used by `shutdown()` (and `deinit`), which the `Phase`
    // state machine lets run exactly once, and libmicrohttpd's quiesce/stop are safe to call from
    // any thread.
    private struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// The socket opened before the server was made, if any.
    private let listening: ListeningSocket?

    /// A server that is not yet serving; call `start()`. `observer` hears about every answered
    /// request (route pattern, status, duration), for metrics. With `listening`, the server serves
    /// on that socket instead of binding the configuration's host and port when it starts.
    public init(
        configuration: ServerConfiguration, router: Router, logger: Logger, observer: RequestObserver? = nil, listening: ListeningSocket? = nil
    ) {
        core = ServerCore(router: router, configuration: configuration, logger: logger, observer: observer)
        self.listening = listening
    }

    deinit {
        if case .running(let daemon) = state.withLock({ $0.phase }) {
            MHD_stop_daemon(daemon.pointer)
        }
        core.connections.stopSweeping()
    }

    /// The bound port (the real one when the configuration asked for 0); 0 before `start()`.
    public var port: Int {
        state.withLock { $0.port }
    }

    /// Binds the socket (or takes the one given at init) and starts the worker threads. Throws `HTTPServerError` for a bad
    /// configuration, an address in use, or a daemon libmicrohttpd refuses to start.
    public func start() throws(HTTPServerError) {
        let configuration = core.configuration
        try configuration.validate()
        try state.withLock { (state: inout State) throws(HTTPServerError) in
            guard case .idle = state.phase else {
                throw HTTPServerError(code: .alreadyStarted, message: "the server was already started")
            }
            let socket: (fd: Int32, port: Int)
            if let taken = listening?.take() {
                socket = taken
            } else {
                socket = try ListenSocket.open(host: configuration.host, port: configuration.port, backlog: configuration.listenBacklog)
            }
            guard let pointer = startDaemon(listening: socket.fd) else {
                close(socket.fd)
                throw HTTPServerError(code: .startFailed, message: "libmicrohttpd could not start (see its log lines)")
            }
            state.phase = .running(Daemon(pointer: pointer))
            state.port = socket.port
            stopped.enter()
        }
        core.connections.startSweeping()
        core.logger.info("http server started", [
            "host": configuration.host, "port": String(port), "threads": String(configuration.threads),
        ])
    }

    /// Stops accepting, lets in-flight requests finish (at most `drainTimeout`), then stops.
    /// Idempotent and safe from any thread; every caller returns once the server has stopped.
    public func shutdown() {
        let daemon: Daemon? = state.withLock { state in
            switch state.phase {
            case .idle:
                state.phase = .stopped
                return nil
            case .running(let daemon):
                state.phase = .stopping
                return daemon
            case .stopping, .stopped:
                return nil
            }
        }
        guard let daemon else {
            waitUntilStopped()
            return
        }
        drain(daemon)
        state.withLock { $0.phase = .stopped }
        core.logger.info("http server stopped", ["port": String(port)])
        stopped.leave()
    }

    /// Blocks until `shutdown()` has finished; returns at once if the server never started.
    public func waitUntilStopped() {
        stopped.wait()
    }

    /// Requests currently between arrival and completion (for metrics and tests).
    public var inFlightRequests: Int {
        core.inFlight.load(ordering: .relaxed)
    }

    private func drain(_ daemon: Daemon) {
        core.draining.store(true, ordering: .relaxed)
        let listener = MHD_quiesce_daemon(daemon.pointer)
        if listener >= 0 { close(listener) }
        let deadline = ContinuousClock.now + core.configuration.drainTimeout
        while core.inFlight.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline {
            usleep(10_000)
        }
        let remaining = core.inFlight.load(ordering: .relaxed)
        if remaining > 0 {
            core.logger.warning("drain timeout: closing in-flight requests", ["requests": String(remaining)])
        }
        MHD_stop_daemon(daemon.pointer)
        core.connections.stopSweeping()
    }
}

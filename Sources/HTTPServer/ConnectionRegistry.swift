import CMicroHTTPD
import Dispatch
import Glibc
import Logging
import Synchronization
import SystemSupport

/// The connection caps (the server's and each client's) and the whole-request deadline, on top of
/// libmicrohttpd.
///
/// libmicrohttpd's own per-IP limit counts every peer, a reverse proxy included, and its
/// connection timeout is an idle timeout that a client trickling one byte at a time never hits.
/// Its own connection limit is split evenly over the worker threads, and a worker that reaches
/// its share stops accepting, leaving new connections waiting unanswered in the listen queue; the
/// server's cap is therefore kept here (closed at once, whichever worker accepts), and
/// libmicrohttpd's is set out of reach (`HTTPServer+Daemon.swift`).
/// So the server keeps its own `ConnectionTable`: the accept policy callback admits or refuses,
/// the connection-notification callback records start and close, and a timer shuts down the
/// socket of every connection whose request has not fully arrived within `requestTimeout`.
/// `shutdown(2)` (not `close`) runs under the table's lock, and libmicrohttpd reports a close
/// before it closes the descriptor, so the descriptor shut down is always still that connection's;
/// libmicrohttpd then sees the end of the stream and cleans up as for any closed connection.
final class ConnectionRegistry: Sendable {
    private let table: Mutex<ConnectionTable>
    private let requestTimeout: Duration
    private let logger: Logger
    private let sweeper = Mutex<SweepTimer?>(nil)

    /// The deadline timer.
    // Safe because dispatch sources are thread-safe objects; the `Mutex` only orders start and stop.
    private struct SweepTimer: @unchecked Sendable {
        let source: any DispatchSourceTimer
    }

    init(configuration: ServerConfiguration, logger: Logger) {
        table = Mutex(ConnectionTable(
            limit: configuration.maxConnectionsPerClient, totalLimit: configuration.maxConnections, trusted: configuration.trustedProxies
        ))
        requestTimeout = configuration.requestTimeout
        self.logger = logger
    }

    /// The accept policy: false closes the new connection before any byte is read.
    func admit(_ address: UnsafePointer<sockaddr>?) -> Bool {
        let peer = address.flatMap { IPAddress(socketAddress: $0) }
        switch table.withLock({ $0.admit(peer, thread: Self.thread) }) {
        case nil:
            return true
        case .full:
            // Debug, as below: clients choose how often this happens, and a line each would let them flood the log.
            logger.debug("connection refused: the server holds its maximum of connections", ["peer": peer?.description ?? "unknown"])
            return false
        case .tooManyFromClient:
            logger.debug("connection refused: too many from one client", ["peer": peer?.description ?? "unknown"])
            return false
        }
    }

    /// The connection started; `deadline` is its own (its `ConnectionContext`'s), which the
    /// connection's thread sets per request without this registry's lock.
    func started(_ connection: OpaquePointer, deadline: RequestDeadline) {
        let fd = shim_MHD_connection_fd(connection)
        let peer = shim_MHD_client_address(connection).flatMap { IPAddress(socketAddress: $0) }
        table.withLock { $0.start(Self.key(connection), fd: fd, peer: peer, thread: Self.thread, deadline: deadline) }
    }

    func closed(_ connection: OpaquePointer) {
        table.withLock { $0.close(Self.key(connection)) }
    }

    /// A response was queued: the request has arrived (or was answered early). Lock-free: the
    /// connection's own `RequestDeadline`.
    func answered(_ connection: OpaquePointer) {
        ConnectionContext.of(connection)?.deadline.answered()
    }

    /// The request is over; the connection now waits for the next one. Lock-free, as above.
    func awaitNext(_ connection: OpaquePointer) {
        ConnectionContext.of(connection)?.deadline.awaitNext(now: .now)
    }

    /// Open connections from `address` that count against the cap (for tests and metrics).
    func connections(from address: IPAddress) -> Int {
        table.withLock { $0.count(for: address) }
    }

    /// Starts the timer that enforces the request deadline (a few times per timeout, at most 1 s apart).
    func startSweeping() {
        let interval = min(.seconds(1), max(.milliseconds(50), requestTimeout / 4))
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "http.request-deadline"))
        timer.schedule(deadline: .now() + interval.dispatchInterval, repeating: interval.dispatchInterval)
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
        let wrapped = SweepTimer(source: timer)
        sweeper.withLock { $0 = wrapped }
    }

    func stopSweeping() {
        sweeper.withLock { timer in
            timer?.source.cancel()
            timer = nil
        }
    }

    /// Shuts down every connection past the deadline.
    func sweep() {
        let cut = table.withLock { table in
            let expired = table.expire(now: .now, timeout: requestTimeout)
            for connection in expired { shutdown(connection.fd, Int32(SHUT_RDWR)) }
            return expired
        }
        for connection in cut {
            logger.info("request deadline passed: connection closed", [
                "peer": connection.peer?.description ?? "unknown", "timeout_ms": String(requestTimeout / .milliseconds(1)),
            ])
        }
    }

    private static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: connection))
    }

    private static var thread: UInt { UInt(pthread_self()) }
}

// One non-blocking socket carrying TLS (OpenSSL) and HTTP/2 (nghttp2): the socket-level part that
// the client's `H2ClientConnection` and the fake APNs server's connections (PassServerTesting, through
// `package` access) have in common. Each side keeps its own state machine and error type and
// implements `H2SessionDelegate`; the channel moves bytes, owns the C handles, and reports outcomes
// as Swift values, which the side turns into its errors.
//
// Threading: a channel belongs to the one thread that polls its socket (the client's I/O thread or
// the fake's thread); delegate calls run on that thread inside `read`/`write`.

package import Certificates
import CNGHTTP2
import COpenSSL
import Foundation

/// Owns a socket, its `SSL` object and its nghttp2 session, and frees them in `close()`.
package final class H2TLSChannel {
    /// Which side of the connection this is: it picks SSL_connect/SSL_accept and the session kind.
    package enum Role: Sendable { case client, server }

    /// Where a TLS handshake step left off.
    package enum HandshakeStep: Equatable, Sendable {
        case done
        /// Poll for POLLIN and call `handshake()` again.
        case wantRead
        /// Poll for POLLOUT and call `handshake()` again.
        case wantWrite
        /// The handshake failed; OpenSSL's error queue and verify result say why.
        case failed
    }

    /// Client or server side, fixed at creation.
    package let role: Role
    /// The socket; -1 once closed.
    package private(set) var fd: Int32
    /// The TLS connection once `startTLS` succeeded.
    private(set) var tls: TLSConnection?
    /// The `nghttp2_session *` once `startSession` succeeded.
    private(set) var session: OpaquePointer?
    /// Receives the session's events; the owner holds the channel, so this reference is weak.
    private(set) weak var delegate: (any H2SessionDelegate)?
    /// Bytes nghttp2 produced that the socket has not taken yet.
    var pending: [UInt8] = []
    /// Bodies of submitted messages not yet handed to nghttp2, by stream.
    var outgoingBodies: [Int32: [UInt8]] = [:]

    /// Takes ownership of a connected (or connecting) non-blocking socket.
    package init(fd: Int32, role: Role) {
        self.fd = fd
        self.role = role
    }

    deinit { close() }

    /// True once `startTLS` succeeded and until `close()`.
    package var hasTLS: Bool { tls != nil }
    /// True once `startSession` succeeded and until `close()`.
    package var hasSession: Bool { session != nil }
    /// True while nghttp2 output is waiting for the socket.
    package var hasPendingOutput: Bool { !pending.isEmpty }

    /// Creates the `SSL` object on the socket; throws with OpenSSL's reasons when it cannot.
    package func startTLS(context: TLSContext) throws(OpenSSLError) {
        let connection = try TLSConnection(context: context)
        try check(SSL_set_fd(connection.pointer, fd) == 1, "attach the TLS session to the socket")
        if role == .server { SSL_set_accept_state(connection.pointer) }
        tls = connection
    }

    /// Advances the TLS handshake as far as the socket allows.
    package func handshake() -> HandshakeStep {
        guard let ssl = tls?.pointer else { return .failed }
        OpenSSLErrorQueue.clear()
        let result = role == .client ? SSL_connect(ssl) : SSL_accept(ssl)
        if result == 1 { return .done }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        default: return .failed
        }
    }

    /// Sends TLS close_notify (without waiting for the peer's); OpenSSL's complaints are dropped,
    /// as the connection is ending either way.
    package func sendCloseNotify() {
        guard let ssl = tls?.pointer else { return }
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
    }

    /// Creates the nghttp2 session, reporting to `delegate`; false when nghttp2 could not.
    package func startSession(delegate: any H2SessionDelegate) -> Bool {
        var newSession: OpaquePointer? = nil
        let user = Unmanaged.passUnretained(self).toOpaque()
        let callbacks = H2SessionCallbacks.shared.pointer
        let status = role == .client
            ? nghttp2_session_client_new(&newSession, callbacks, user)
            : nghttp2_session_server_new(&newSession, callbacks, user)
        guard status == 0, let newSession else { return false }
        self.delegate = delegate
        session = newSession
        return true
    }

    /// Queues a SETTINGS frame; false when nghttp2 refused it.
    @discardableResult
    package func submitSettings(_ entries: [H2Setting]) -> Bool {
        guard let session else { return false }
        var settings = entries.map { entry in
            switch entry {
            case .enablePush(let enabled):
                nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: enabled ? 1 : 0)
            case .initialWindowSize(let size):
                nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: size)
            case .maxConcurrentStreams(let limit):
                nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: limit)
            }
        }
        return nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0
    }

    /// Frees the session and the TLS connection and closes the socket; safe to call again.
    package func close() {
        if let session { nghttp2_session_del(session) }
        session = nil
        tls = nil
        if fd >= 0 { Foundation.close(fd) }
        fd = -1
        outgoingBodies.removeAll()
    }

    /// nghttp2's text for one of its negative error codes.
    package static func describe(http2Error code: Int) -> String {
        String(cString: nghttp2_strerror(Int32(clamping: code)))
    }
}

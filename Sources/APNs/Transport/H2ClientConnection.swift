// One TLS + HTTP/2 connection to APNs, driven by the client's I/O thread only.
//
// State machine: TCP connect (non-blocking) → TLS handshake (SSL_connect, WANT_READ/WANT_WRITE) →
// open (nghttp2 session over SSL_read/SSL_write on the non-blocking socket) → closed. The session's
// events reach this object as its `H2SessionDelegate` (H2ClientConnection+Session.swift) and become
// `Event`s that the I/O loop consumes after each `handle(revents:)`.

import Certificates
import Foundation

final class H2ClientConnection {
    enum State { case tcpConnecting, handshaking, open, closed }

    enum Event {
        /// The server's SETTINGS frame (its stream limit).
        case settings(maxConcurrentStreams: UInt32)
        case goAway
        /// A stream ended with an HTTP answer.
        case response(stream: Int32, status: Int, apnsID: String?, body: [UInt8])
        /// The server never processed the stream: safe to send again elsewhere.
        case refused(stream: Int32)
        /// The stream ended without an answer (reset by the server for another reason).
        case reset(stream: Int32, errorCode: UInt32)
    }

    struct StreamState {
        var status: Int?
        var apnsID: String?
        var body: [UInt8] = []
    }

    let id: Int
    private(set) var state: State = .tcpConnecting
    /// The socket, TLS and HTTP/2 sessions, and the bytes between them.
    let channel: H2TLSChannel
    private let host: String
    private let authority: String
    var events: [Event] = []
    var streams: [Int32: StreamState] = [:]
    /// Set once the server's first SETTINGS frame arrived: the server accepted us (TLS 1.3 client
    /// certificate rejections surface only after the handshake, before that frame).
    var receivedSettings = false
    var writeBlocked = false
    var readNeedsWrite = false
    var lastActivity: Double
    var pingSentAt: Double?
    let connectDeadline: Double

    init(id: Int, address: SocketAddress, host: String, port: UInt16, now: Double, connectTimeout: Double) throws(APNSError) {
        self.id = id
        self.host = host
        let bracketed = host.contains(":") ? "[\(host)]" : host
        self.authority = port == 443 ? bracketed : "\(bracketed):\(port)"
        self.channel = H2TLSChannel(fd: try address.startConnect(), role: .client)
        self.lastActivity = now
        self.connectDeadline = now + connectTimeout
    }

    deinit { close() }

    var fd: Int32 { channel.fd }

    /// The poll events this connection waits for.
    var pollEvents: Int16 {
        switch state {
        case .tcpConnecting: return Int16(POLLOUT)
        case .handshaking: return writeBlocked ? Int16(POLLOUT) : Int16(POLLIN)
        case .open:
            var events = Int16(POLLIN)
            if writeBlocked || readNeedsWrite { events |= Int16(POLLOUT) }
            return events
        case .closed: return 0
        }
    }

    /// Advances the connection after poll() reported `revents`. Throws when it is unusable.
    func handle(revents: Int16, tls: TLSContext) throws(APNSError) {
        switch state {
        case .tcpConnecting:
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0, revents & Int16(POLLOUT) != 0 else {
                throw APNSError(code: .connectionFailed, message: "connect failed: \(String(cString: strerror(error == 0 ? ECONNREFUSED : error)))")
            }
            try startTLS(tls)
            try handshake()
        case .handshaking:
            try handshake()
        case .open:
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 || readNeedsWrite { try readAvailable() }
            try flush()
        case .closed:
            return
        }
    }

    private func startTLS(_ tls: TLSContext) throws(APNSError) {
        do throws(OpenSSLError) {
            try channel.startTLS(context: tls)
        } catch {
            throw APNSError(code: .tls, openSSL: error)
        }
        try channel.tls?.expectPeer(host: host)
        state = .handshaking
    }

    private func handshake() throws(APNSError) {
        guard let connection = channel.tls else { throw APNSError(code: .tls, message: "no TLS session") }
        switch channel.handshake() {
        case .done: break
        case .wantRead: writeBlocked = false; return
        case .wantWrite: writeBlocked = true; return
        case .failed:
            if let reason = connection.certificateRejection {
                throw APNSError(code: .tls, message: "server certificate rejected: \(reason)")
            }
            throw APNSError.drainingOpenSSL(code: .tls, "complete the TLS handshake")
        }
        writeBlocked = false
        guard connection.negotiatedHTTP2 else {
            throw APNSError(code: .tls, message: "server did not negotiate HTTP/2 (ALPN h2)")
        }
        try startSession()
        state = .open
        try flush()
    }

    private func startSession() throws(APNSError) {
        guard channel.startSession(delegate: self) else {
            throw APNSError(code: .protocolError, message: "cannot create an HTTP/2 session")
        }
        guard channel.submitSettings([.enablePush(false), .initialWindowSize(1 << 20)]) else {
            throw APNSError(code: .protocolError, message: "cannot send SETTINGS")
        }
    }

    /// Queues one push on a new stream; the bytes go out on the next `flush()`. `pushHeaders` are
    /// the configured `apns-push-type` and `apns-priority` fields.
    func submit(path: String, topic: String, expiration: Int64, pushHeaders: [(String, String)]) throws(APNSError) -> Int32 {
        guard state == .open, channel.hasSession else { throw APNSError(code: .connectionLost, message: "connection not open") }
        let headers: [(String, String)] = [
            (":method", "POST"), (":scheme", "https"), (":authority", authority), (":path", path), ("apns-topic", topic),
        ] + pushHeaders + [
            ("apns-expiration", String(expiration)), ("content-type", "application/json"), ("content-length", "2"),
        ]
        let stream = channel.submitRequest(headers: headers, body: Array("{}".utf8))
        guard stream > 0 else {
            throw APNSError(code: .protocolError, message: "cannot submit request: \(H2TLSChannel.describe(http2Error: Int(stream)))")
        }
        streams[stream] = StreamState()
        return stream
    }

    /// Cancels a stream (request timed out); its close is ignored by the loop.
    func reset(stream: Int32) {
        streams[stream] = nil
        channel.resetStream(stream, error: .cancel)
    }

    func ping(now: Double) {
        guard channel.hasSession else { return }
        channel.ping()
        pingSentAt = now
    }

    /// Whether nghttp2 has nothing left to do (after GOAWAY, all streams finished).
    var isFinished: Bool {
        guard channel.hasSession else { return state == .closed }
        return channel.sessionIsFinished
    }

    func close() {
        channel.close()
        state = .closed
    }
}

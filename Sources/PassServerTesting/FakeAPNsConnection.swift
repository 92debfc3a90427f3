// One accepted TLS + HTTP/2 connection of the fake (fake's thread only; see FakeAPNs.swift).

import CNGHTTP2
import COpenSSL
import Foundation

final class FakeAPNsConnection {
    enum State { case handshaking, open, closing, closed }

    struct Stream {
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var concurrent: Int
        var advertisedLimit: UInt32
    }

    let id: Int
    private(set) var fd: Int32
    private(set) var ssl: OpaquePointer?
    var session: OpaquePointer?
    var state: State = .handshaking
    var streams: [Int32: Stream] = [:]
    var responseBodies: [Int32: [UInt8]] = [:]
    /// Requests whose last frame arrived, to be answered by the loop.
    var completed: [Int32] = []
    var acceptedStreams = 0
    let goAwayAfter: Int?
    var goAwayLastStreamID: Int32?
    var closingDeadline = 0.0
    /// The stream limit in the last SETTINGS frame sent.
    var advertisedLimit: UInt32 = 0
    private var handshakeFailed = false
    private var pending: [UInt8] = []
    private var writeBlocked = false

    init(id: Int, fd: Int32, tls: FakeAPNsTLS, goAwayAfter: Int?) throws(FakeAPNsError) {
        self.id = id
        self.fd = fd
        self.goAwayAfter = goAwayAfter
        guard let ssl = SSL_new(tls.context) else { throw FakeAPNsError("SSL_new failed") }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
    }

    deinit { close() }

    var pollEvents: Int16 {
        switch state {
        case .handshaking, .open, .closing: return Int16(POLLIN) | (writeBlocked ? Int16(POLLOUT) : 0)
        case .closed: return 0
        }
    }

    /// Continues the TLS handshake; starts the HTTP/2 session when done. False when the client was refused.
    func handshake(maxConcurrentStreams: UInt32) -> Bool {
        guard let ssl else { return false }
        ERR_clear_error()
        let result = SSL_accept(ssl)
        if result != 1 {
            let error = SSL_get_error(ssl, result)
            if error == SSL_ERROR_WANT_READ { writeBlocked = false; return true }
            if error == SSL_ERROR_WANT_WRITE { writeBlocked = true; return true }
            ERR_clear_error()
            // Let the alert reach the client before the socket closes: FIN, then drain what it sent
            // (closing with unread bytes would send a RST that can discard the alert).
            Foundation.shutdown(fd, Int32(SHUT_WR))
            handshakeFailed = true
            state = .closing
            closingDeadline = FakeAPNsLoop.now() + 2
            return true
        }
        writeBlocked = false
        var newSession: OpaquePointer? = nil
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_server_new(&newSession, FakeAPNsCallbacks.shared.pointer, user) == 0, let newSession else { return false }
        session = newSession
        state = .open
        sendSettings(maxConcurrentStreams: maxConcurrentStreams)
        return (try? flush()) != nil
    }

    func sendSettings(maxConcurrentStreams: UInt32) {
        guard let session else { return }
        advertisedLimit = maxConcurrentStreams
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: maxConcurrentStreams)]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    }

    /// Reads and feeds nghttp2 until the socket is empty. Throws when the connection is over.
    func readAvailable() throws(FakeAPNsError) {
        if handshakeFailed { return try drainRaw() }
        guard let ssl else { throw FakeAPNsError("closed") }
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        while true {
            ERR_clear_error()
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                guard state == .open, let session else { continue }  // closing: discard
                let consumed = buffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, Int(count)) }
                if consumed < 0 { throw FakeAPNsError("HTTP/2 error \(consumed)") }
                continue
            }
            let error = SSL_get_error(ssl, count)
            if error == SSL_ERROR_WANT_READ { return }
            if error == SSL_ERROR_WANT_WRITE { writeBlocked = true; return }
            ERR_clear_error()
            throw FakeAPNsError("connection ended")
        }
    }

    /// Discards raw bytes until the client closes.
    private func drainRaw() throws(FakeAPNsError) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = Foundation.read(fd, &buffer, buffer.count)
            if count > 0 { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            throw FakeAPNsError("connection ended")
        }
    }

    /// Writes what nghttp2 has until done or the socket is full.
    func flush() throws(FakeAPNsError) {
        guard let ssl, let session, state == .open else { return }
        while true {
            if pending.isEmpty {
                while pending.count < 64 * 1024 {
                    var chunk: UnsafePointer<UInt8>? = nil
                    let length = nghttp2_session_mem_send(session, &chunk)
                    if length < 0 { throw FakeAPNsError("HTTP/2 error \(length)") }
                    guard length > 0, let chunk else { break }
                    pending.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
                }
                if pending.isEmpty { writeBlocked = false; return }
            }
            ERR_clear_error()
            let written = pending.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            if written > 0 {
                pending.removeFirst(Int(written))
                continue
            }
            let error = SSL_get_error(ssl, written)
            if error == SSL_ERROR_WANT_WRITE { writeBlocked = true; return }
            if error == SSL_ERROR_WANT_READ { return }
            ERR_clear_error()
            throw FakeAPNsError("write failed")
        }
    }

    /// After a GOAWAY: true once every accepted stream was answered and written out.
    var isDrained: Bool {
        guard goAwayLastStreamID != nil, let session, state == .open else { return false }
        return streams.isEmpty && pending.isEmpty && nghttp2_session_want_write(session) == 0
    }

    /// Sends close_notify and FIN, then keeps reading until the client closes (so no RST eats answers).
    func beginClosing(now: Double) {
        guard let ssl else { return }
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        Foundation.shutdown(fd, Int32(SHUT_WR))
        state = .closing
        closingDeadline = now + 2
    }

    /// Sends a response with an optional JSON body.
    func respond(stream: Int32, status: Int, body: String?) {
        guard let session, streams[stream] != nil else { return }
        var headers: [(String, String)] = [(":status", String(status)), ("apns-id", UUID().uuidString)]
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: fakeResponseBody)
        if let body {
            headers.append(("content-type", "application/json"))
            responseBodies[stream] = Array(body.utf8)
        }
        fakeWithHeaderBlock(headers) { nva in
            if body == nil {
                _ = nghttp2_submit_response(session, stream, nva.baseAddress, nva.count, nil)
            } else {
                _ = nghttp2_submit_response(session, stream, nva.baseAddress, nva.count, &provider)
            }
        }
    }

    func close() {
        if let session { nghttp2_session_del(session) }
        session = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        if fd >= 0 { Foundation.close(fd) }
        fd = -1
        state = .closed
    }
}

/// Calls `body` with an nghttp2 header array pointing into one buffer (nghttp2 copies it).
func fakeWithHeaderBlock(_ headers: [(String, String)], _ body: (UnsafeBufferPointer<nghttp2_nv>) -> Void) {
    var bytes: [UInt8] = []
    var offsets: [(Int, Int, Int, Int)] = []
    for (name, value) in headers {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.utf8)
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        offsets.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
    }
    bytes.withUnsafeMutableBufferPointer { storage in
        guard let base = storage.baseAddress else { return }
        let nva = offsets.map {
            nghttp2_nv(name: base + $0.0, value: base + $0.2, namelen: $0.1, valuelen: $0.3, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        nva.withUnsafeBufferPointer { body($0) }
    }
}

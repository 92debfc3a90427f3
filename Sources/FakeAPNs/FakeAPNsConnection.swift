// One accepted TLS + HTTP/2 connection of the fake (fake's thread only; see FakeAPNs.swift).

import APNs
import Certificates
import Foundation
import SystemSupport

final class FakeAPNsConnection {
    enum State { case handshaking, open, closing, closed }

    struct Stream {
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var concurrent: Int
        var advertisedLimit: UInt32
    }

    let id: Int
    /// The socket, TLS and HTTP/2 sessions, and the bytes between them.
    let channel: H2TLSChannel
    var state: State = .handshaking
    var streams: [Int32: Stream] = [:]
    /// Requests whose last frame arrived, to be answered by the loop.
    var completed: [Int32] = []
    var acceptedStreams = 0
    /// PINGs from the client (not acknowledgements of ours) not yet added to the shared count.
    var pingsReceived = 0
    let goAwayAfter: Int?
    var goAwayLastStreamID: Int32?
    var closingDeadline = 0.0
    /// The stream limit in the last SETTINGS frame sent.
    var advertisedLimit: UInt32 = 0
    private var handshakeFailed = false
    private var writeBlocked = false

    init(id: Int, fd: Int32, tls: TLSContext, goAwayAfter: Int?) throws(FakeAPNsError) {
        self.id = id
        self.channel = H2TLSChannel(fd: fd, role: .server)
        self.goAwayAfter = goAwayAfter
        do throws(OpenSSLError) {
            try channel.startTLS(context: tls)
        } catch {
            throw FakeAPNsError(error.description)
        }
    }

    deinit { close() }

    var fd: Int32 { channel.fd }

    var pollEvents: Int16 {
        switch state {
        case .handshaking, .open, .closing: return Int16(POLLIN) | (writeBlocked ? Int16(POLLOUT) : 0)
        case .closed: return 0
        }
    }

    /// Continues the TLS handshake; starts the HTTP/2 session when done. False when the client was refused.
    func handshake(maxConcurrentStreams: UInt32) -> Bool {
        guard channel.hasTLS else { return false }
        switch channel.handshake() {
        case .done: break
        case .wantRead: writeBlocked = false; return true
        case .wantWrite: writeBlocked = true; return true
        case .failed:
            OpenSSLErrorQueue.clear()
            // Let the alert reach the client before the socket closes: FIN, then drain what it sent
            // (closing with unread bytes would send a RST that can discard the alert).
            Foundation.shutdown(fd, Int32(SHUT_WR))
            handshakeFailed = true
            state = .closing
            closingDeadline = monotonicSeconds() + 2
            return true
        }
        writeBlocked = false
        guard channel.startSession(delegate: self) else { return false }
        state = .open
        sendSettings(maxConcurrentStreams: maxConcurrentStreams)
        return (try? flush()) != nil
    }

    func sendSettings(maxConcurrentStreams: UInt32) {
        guard channel.hasSession else { return }
        advertisedLimit = maxConcurrentStreams
        channel.submitSettings([.maxConcurrentStreams(maxConcurrentStreams)])
    }

    /// Reads and feeds nghttp2 until the socket is empty. Throws when the connection is over.
    func readAvailable() throws(FakeAPNsError) {
        if handshakeFailed { return try drainRaw() }
        guard channel.hasTLS else { throw FakeAPNsError("closed") }
        switch channel.read(feedingSession: state == .open) {  // closing: discard
        case .wantRead: return
        case .wantWrite: writeBlocked = true
        case .http2Error(let code): throw FakeAPNsError("HTTP/2 error \(code)")
        case .notOpen, .closedByPeer, .tlsFailure, .socketFailure:
            OpenSSLErrorQueue.clear()
            throw FakeAPNsError("connection ended")
        }
    }

    /// Discards raw bytes until the client closes.
    private func drainRaw() throws(FakeAPNsError) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = Foundation.read(channel.fd, &buffer, buffer.count)
            if count > 0 { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            throw FakeAPNsError("connection ended")
        }
    }

    /// Writes what nghttp2 has until done or the socket is full.
    func flush() throws(FakeAPNsError) {
        guard state == .open else { return }
        switch channel.write() {
        case .notOpen, .wantRead: return
        case .sent: writeBlocked = false
        case .wantWrite: writeBlocked = true
        case .http2Error(let code): throw FakeAPNsError("HTTP/2 error \(code)")
        case .failed:
            OpenSSLErrorQueue.clear()
            throw FakeAPNsError("write failed")
        }
    }

    /// After a GOAWAY: true once every accepted stream was answered and written out.
    var isDrained: Bool {
        guard goAwayLastStreamID != nil, channel.hasSession, state == .open else { return false }
        return streams.isEmpty && !channel.hasPendingOutput && !channel.sessionWantsWrite
    }

    /// Sends close_notify and FIN, then keeps reading until the client closes (so no RST eats answers).
    func beginClosing(now: Double) {
        guard channel.hasTLS else { return }
        channel.sendCloseNotify()
        Foundation.shutdown(channel.fd, Int32(SHUT_WR))
        state = .closing
        closingDeadline = now + 2
    }

    /// Sends a response with an optional JSON body; false when the stream is gone (nothing sent).
    @discardableResult
    func respond(stream: Int32, status: Int, body: String?) -> Bool {
        guard channel.hasSession, streams[stream] != nil else { return false }
        var headers: [(String, String)] = [(":status", String(status)), ("apns-id", UUID().uuidString)]
        if body != nil { headers.append(("content-type", "application/json")) }
        channel.submitResponse(stream: stream, headers: headers, body: body.map { Array($0.utf8) })
        return true
    }

    func close() {
        channel.close()
        state = .closed
    }
}

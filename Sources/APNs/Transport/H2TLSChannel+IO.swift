// Moving bytes between the socket, OpenSSL and nghttp2 for `H2TLSChannel` (owning thread only).

import Certificates
import CNGHTTP2
import COpenSSL
import Foundation

extension H2TLSChannel {
    /// How a `read` ended. Everything but `wantRead`/`wantWrite` ends the connection.
    package enum ReadOutcome: Equatable, Sendable {
        /// No TLS session yet (or any more).
        case notOpen
        /// The socket is empty: poll for POLLIN.
        case wantRead
        /// OpenSSL must write before it can read on (renegotiation, key update): poll for POLLOUT.
        case wantWrite
        /// nghttp2 rejected what the peer sent (a negative nghttp2 error code).
        case http2Error(Int)
        /// The peer closed the TLS session (close_notify).
        case closedByPeer
        /// A TLS protocol error (an alert, a bad record); OpenSSL's error queue says which.
        case tlsFailure
        /// The socket failed or hit EOF without close_notify; `errno` as it was then (0 at EOF).
        case socketFailure(errno: Int32)
    }

    /// How a `write` ended.
    package enum WriteOutcome: Equatable, Sendable {
        /// No TLS or HTTP/2 session yet (or any more).
        case notOpen
        /// Everything nghttp2 had is written.
        case sent
        /// The socket is full: poll for POLLOUT.
        case wantWrite
        /// OpenSSL must read before it can write on: poll for POLLIN.
        case wantRead
        /// nghttp2 failed to produce frames (a negative nghttp2 error code).
        case http2Error(Int)
        /// The write failed; OpenSSL's error queue says why.
        case failed
    }

    /// Reads everything the socket has and feeds it to nghttp2 (whose callbacks run meanwhile),
    /// until OpenSSL wants more bytes or the connection ends. With `feedingSession` false the
    /// decrypted bytes are discarded (a connection that is closing).
    package func read(feedingSession: Bool = true) -> ReadOutcome {
        guard let ssl = tls?.pointer else { return .notOpen }
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        while true {
            OpenSSLErrorQueue.clear()
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                guard feedingSession, let session else { continue }
                let consumed = buffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, Int(count)) }
                if consumed < 0 { return .http2Error(consumed) }
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ: return .wantRead
            case SSL_ERROR_WANT_WRITE: return .wantWrite
            case SSL_ERROR_ZERO_RETURN: return .closedByPeer
            case SSL_ERROR_SSL: return .tlsFailure
            default: return .socketFailure(errno: errno)
            }
        }
    }

    /// Writes what nghttp2 has to send (at most 64 KiB gathered at a time) until it has nothing
    /// more or the socket is full.
    package func write() -> WriteOutcome {
        guard let ssl = tls?.pointer, let session else { return .notOpen }
        while true {
            if pending.isEmpty {
                while pending.count < 64 * 1024 {
                    var chunk: UnsafePointer<UInt8>? = nil
                    let length = nghttp2_session_mem_send(session, &chunk)
                    if length < 0 { return .http2Error(length) }
                    guard length > 0, let chunk else { break }
                    pending.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
                }
                if pending.isEmpty { return .sent }
            }
            OpenSSLErrorQueue.clear()
            let written = pending.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            if written > 0 {
                pending.removeFirst(Int(written))
                continue
            }
            switch SSL_get_error(ssl, written) {
            case SSL_ERROR_WANT_WRITE: return .wantWrite
            case SSL_ERROR_WANT_READ: return .wantRead
            default: return .failed
            }
        }
    }
}

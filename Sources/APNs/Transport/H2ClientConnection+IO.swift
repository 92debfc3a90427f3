// Turning `H2TLSChannel` read/write outcomes into the client's state and `APNSError`s (I/O thread only).

import Foundation

extension H2ClientConnection {
    /// Reads everything the socket has, feeding nghttp2, until OpenSSL wants more bytes.
    func readAvailable() throws(APNSError) {
        guard channel.hasTLS, channel.hasSession else { return }
        readNeedsWrite = false
        switch channel.read() {
        case .notOpen, .wantRead: return
        case .wantWrite: readNeedsWrite = true
        case .http2Error(let code):
            throw APNSError(code: .protocolError, message: "HTTP/2 error: \(H2TLSChannel.describe(http2Error: code))")
        case .closedByPeer: throw APNSError(code: .connectionLost, message: "server closed the connection")
        case .tlsFailure: throw APNSError.drainingOpenSSL(code: receivedSettings ? .connectionLost : .tls, "read from the TLS connection")
        case .socketFailure(let code):
            let reason = code == 0 ? "connection closed" : String(cString: strerror(code))
            throw APNSError(code: .connectionLost, message: "read failed: \(reason)")
        }
    }

    /// Writes what nghttp2 has to send until done or the socket is full.
    func flush() throws(APNSError) {
        switch channel.write() {
        case .notOpen: return
        case .sent: writeBlocked = false
        case .wantWrite: writeBlocked = true
        case .wantRead: writeBlocked = false; readNeedsWrite = false
        case .http2Error(let code):
            throw APNSError(code: .protocolError, message: "HTTP/2 error: \(H2TLSChannel.describe(http2Error: code))")
        case .failed:
            let failure = APNSError.drainingOpenSSL(code: .connectionLost, "write to the TLS connection")
            // Before the server's SETTINGS, a failed write usually means it refused our client
            // certificate: read its alert so the caller gets `.tls` rather than a retryable loss.
            if !receivedSettings { try readAvailable() }
            throw failure
        }
    }
}

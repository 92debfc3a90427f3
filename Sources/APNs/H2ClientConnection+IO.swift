// Moving bytes between the socket, OpenSSL and nghttp2 for `H2ClientConnection` (I/O thread only).

import CNGHTTP2
import COpenSSL
import Foundation

extension H2ClientConnection {
    /// Reads everything the socket has, feeding nghttp2, until OpenSSL wants more bytes.
    func readAvailable() throws(APNSError) {
        guard let ssl, let session else { return }
        readNeedsWrite = false
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        while true {
            ERR_clear_error()
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                let consumed = buffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, Int(count)) }
                guard consumed >= 0 else {
                    throw APNSError(code: .protocolError, message: "HTTP/2 error: \(String(cString: nghttp2_strerror(Int32(consumed))))")
                }
                continue
            }
            let error = SSL_get_error(ssl, count)
            switch error {
            case SSL_ERROR_WANT_READ: return
            case SSL_ERROR_WANT_WRITE: readNeedsWrite = true; return
            case SSL_ERROR_ZERO_RETURN: throw APNSError(code: .connectionLost, message: "server closed the connection")
            case SSL_ERROR_SSL: throw APNSError(code: receivedSettings ? .connectionLost : .tls, message: "TLS error" + openSSLErrors())
            default:
                let reason = errno == 0 ? "connection closed" : String(cString: strerror(errno))
                throw APNSError(code: .connectionLost, message: "read failed: \(reason)")
            }
        }
    }

    /// Writes what nghttp2 has to send until done or the socket is full.
    func flush() throws(APNSError) {
        guard let ssl, let session else { return }
        while true {
            if pending.isEmpty {
                while pending.count < 64 * 1024 {
                    var chunk: UnsafePointer<UInt8>? = nil
                    let length = nghttp2_session_mem_send(session, &chunk)
                    guard length >= 0 else {
                        throw APNSError(code: .protocolError, message: "HTTP/2 error: \(String(cString: nghttp2_strerror(Int32(length))))")
                    }
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
            switch SSL_get_error(ssl, written) {
            case SSL_ERROR_WANT_WRITE: writeBlocked = true; return
            case SSL_ERROR_WANT_READ: writeBlocked = false; readNeedsWrite = false; return
            default:
                let failure = APNSError(code: .connectionLost, message: "write failed" + openSSLErrors())
                // Before the server's SETTINGS, a failed write usually means it refused our client
                // certificate: read its alert so the caller gets `.tls` rather than a retryable loss.
                if !receivedSettings { try readAvailable() }
                throw failure
            }
        }
    }

    /// Calls `body` with an nghttp2 header array pointing into one contiguous buffer (nghttp2 copies it).
    func withHeaderBlock<R>(_ headers: [(String, String)], _ body: (UnsafeBufferPointer<nghttp2_nv>) -> R) -> R {
        var bytes: [UInt8] = []
        var offsets: [(name: Int, nameLength: Int, value: Int, valueLength: Int)] = []
        for (name, value) in headers {
            let nameStart = bytes.count
            bytes.append(contentsOf: name.utf8)
            let valueStart = bytes.count
            bytes.append(contentsOf: value.utf8)
            offsets.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
        }
        return bytes.withUnsafeMutableBufferPointer { storage in
            guard let base = storage.baseAddress else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            let nva = offsets.map { entry in
                nghttp2_nv(name: base + entry.name, value: base + entry.value, namelen: entry.nameLength,
                           valuelen: entry.valueLength, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return nva.withUnsafeBufferPointer { body($0) }
        }
    }
}

/// Writes the body `{}` and ends the stream.
let emptyJSONBody: nghttp2_data_source_read_callback = { _, _, buffer, length, flags, _, _ in
    guard let buffer, let flags, length >= 2 else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    buffer[0] = UInt8(ascii: "{")
    buffer[1] = UInt8(ascii: "}")
    flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
    return 2
}

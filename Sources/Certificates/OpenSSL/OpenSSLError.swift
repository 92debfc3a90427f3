// The one way OpenSSL failures become Swift errors: every call whose result matters goes through
// `check`, which drains the calling thread's error queue into an `OpenSSLError` at the point of
// failure, so the reasons belong to that call and the queue is empty for the next one.
//
// Threading: OpenSSL 3 keeps one error queue per thread; everything here is re-entrant.

import COpenSSL

/// A failed OpenSSL call: what was being done and OpenSSL's error queue at that moment.
///
/// Feature modules wrap it in their own error (`CertificateError`, `PassBundleError`, `APNSError`)
/// with the operation's context; the queue's reason strings never contain key material.
package struct OpenSSLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being attempted, in words ("parse the certificate", "sign the certificate").
    package let operation: String
    /// OpenSSL's error strings, oldest first; empty when OpenSSL queued no reason.
    package let queue: [String]

    package init(operation: String, queue: [String]) {
        self.operation = operation
        self.queue = queue
    }

    /// `cannot <operation>`: the failure without OpenSSL's reasons.
    package var message: String { "cannot \(operation)" }

    /// `message`, followed by the queue in parentheses when it holds anything.
    package var description: String {
        queue.isEmpty ? message : "\(message) (\(queue.joined(separator: "; ")))"
    }
}

/// Passes when an OpenSSL call succeeded; otherwise throws `OpenSSLError` with the drained queue.
///
/// `succeeded` is the call's own success test (`== 1`, `> 0`, `== 0` for the few calls that return 0).
package func check(_ succeeded: Bool, _ operation: @autoclosure () -> String) throws(OpenSSLError) {
    guard succeeded else { throw OpenSSLError(operation: operation(), queue: OpenSSLErrorQueue.drain()) }
}

/// The object an OpenSSL call returned; throws `OpenSSLError` with the drained queue when it is NULL.
@discardableResult
package func check<Pointer>(_ pointer: Pointer?, _ operation: @autoclosure () -> String) throws(OpenSSLError) -> Pointer {
    guard let pointer else { throw OpenSSLError(operation: operation(), queue: OpenSSLErrorQueue.drain()) }
    return pointer
}

/// The DER that an OpenSSL `i2d_*` function writes: `encode` is called once for the length (with
/// NULL) and once to write, and both must agree.
package func derEncoding(
    of what: String, _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
) throws(OpenSSLError) -> [UInt8] {
    let length = encode(nil)
    try check(length > 0, "encode \(what)")
    var bytes = [UInt8](repeating: 0, count: Int(length))
    let written = bytes.withUnsafeMutableBufferPointer { buffer in
        var cursor = buffer.baseAddress
        return encode(&cursor)
    }
    try check(written == length, "encode \(what)")
    return bytes
}

/// OpenSSL's per-thread error queue.
package enum OpenSSLErrorQueue {
    /// Every queued error string, oldest first; the queue is empty afterwards.
    package static func drain() -> [String] {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while case let code = ERR_get_error(), code != 0 {
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages
    }

    /// Empties the queue before calls whose failure must be attributed precisely, and after calls
    /// whose failure is an expected answer (a password that does not fit, the end of a PEM file).
    package static func clear() { ERR_clear_error() }
}

// The nghttp2 callbacks table, shared by every session of one kind. nghttp2 copies nothing from it
// after session creation, so one table per kind (client, fake server) lives for the whole process.

import CNGHTTP2

/// One filled `nghttp2_session_callbacks` table, used by `H2TLSChannel.startSession`.
package final class H2SessionCallbacks: @unchecked Sendable {
    // Safe because: the table is filled once in init and only read by nghttp2 afterwards.
    let pointer: OpaquePointer?

    /// `install` receives the new table (an `nghttp2_session_callbacks *`) and sets the callbacks.
    package init(_ install: (OpaquePointer?) -> Void) {
        var callbacks: OpaquePointer? = nil
        nghttp2_session_callbacks_new(&callbacks)
        install(callbacks)
        pointer = callbacks
    }

    /// The owner given to `H2TLSChannel.startSession`, from a callback's user data.
    package static func owner<Owner: AnyObject>(_ user: UnsafeMutableRawPointer?, as type: Owner.Type) -> Owner? {
        guard let user else { return nil }
        return Unmanaged<Owner>.fromOpaque(user).takeUnretainedValue()
    }
}

/// A header name or value nghttp2 handed to a callback, as text.
package func h2Text(_ bytes: UnsafePointer<UInt8>, count: Int) -> String {
    String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

extension [UInt8] {
    /// Appends a DATA chunk nghttp2 handed to a callback while fewer than `limit` bytes are held:
    /// what a misbehaving peer can make us keep stays bounded (by `limit` plus one chunk).
    package mutating func appendReceived(_ data: UnsafePointer<UInt8>, count: Int, limit: Int) {
        guard self.count < limit else { return }
        append(contentsOf: UnsafeBufferPointer(start: data, count: count))
    }
}

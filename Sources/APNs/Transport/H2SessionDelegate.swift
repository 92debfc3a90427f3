// What an HTTP/2 session on an `H2TLSChannel` reports to its owner: the client's connection or a
// fake server's connection. nghttp2's callbacks (H2SessionCallbacks.swift) turn its C structures
// into these calls, so owners deal in Swift values only.
//
// Threading: every call happens on the channel's thread, inside `H2TLSChannel.read()`/`write()`.

/// Receives the events of one HTTP/2 session. Every method has an empty default.
package protocol H2SessionDelegate: AnyObject {
    /// The peer opened `stream` with a HEADERS frame (a server sees each request begin here).
    func h2StreamBegan(_ stream: Int32)
    /// One header field of `stream`, pseudo-headers (`:status`, `:path`) included.
    func h2Header(name: String, value: String, stream: Int32)
    /// A chunk of `stream`'s body; the bytes are valid only during the call.
    func h2Data(_ chunk: UnsafeBufferPointer<UInt8>, stream: Int32)
    /// A complete frame arrived.
    func h2FrameReceived(_ frame: H2Frame)
    /// A frame this side queued was never sent (for instance a request after the peer's GOAWAY).
    func h2FrameNotSent(_ frame: H2Frame)
    /// `stream` ended; `error` is the reason the peer or nghttp2 gave (`.noError` normally).
    func h2StreamClosed(_ stream: Int32, error: H2ErrorCode)
}

extension H2SessionDelegate {
    package func h2StreamBegan(_ stream: Int32) {}
    package func h2Header(name: String, value: String, stream: Int32) {}
    package func h2Data(_ chunk: UnsafeBufferPointer<UInt8>, stream: Int32) {}
    package func h2FrameReceived(_ frame: H2Frame) {}
    package func h2FrameNotSent(_ frame: H2Frame) {}
    package func h2StreamClosed(_ stream: Int32, error: H2ErrorCode) {}
}

/// The parts of an HTTP/2 frame header an owner acts on.
package struct H2Frame: Sendable, Equatable {
    /// The frame types APNs traffic uses; anything else is `.other` with its type code.
    package enum Kind: Sendable, Equatable {
        case data, headers, settings, ping, goAway
        case other(UInt8)
    }

    package let kind: Kind
    /// The stream the frame belongs to (0 for connection-level frames).
    package let stream: Int32
    /// The frame's flags byte: END_STREAM (0x1) on DATA/HEADERS, ACK (0x1) on SETTINGS/PING.
    package let flags: UInt8

    /// A DATA or HEADERS frame that is the last of its stream.
    package var endsStream: Bool { (kind == .data || kind == .headers) && flags & 0x1 != 0 }
    /// A SETTINGS or PING frame that acknowledges ours.
    package var isAcknowledgement: Bool { (kind == .settings || kind == .ping) && flags & 0x1 != 0 }
}

/// HTTP/2 error codes (RFC 9113 §7) carried by RST_STREAM and GOAWAY.
package struct H2ErrorCode: RawRepresentable, Hashable, Sendable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    package static let noError = H2ErrorCode(rawValue: 0x0)
    /// The peer did not process the stream: safe to send it again elsewhere.
    package static let refusedStream = H2ErrorCode(rawValue: 0x7)
    /// The stream is no longer needed.
    package static let cancel = H2ErrorCode(rawValue: 0x8)
}

/// One entry of a SETTINGS frame.
package enum H2Setting: Sendable, Equatable {
    case enablePush(Bool)
    case initialWindowSize(UInt32)
    case maxConcurrentStreams(UInt32)
}

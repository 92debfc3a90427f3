// The one nghttp2 callbacks table, shared by every session of the process (client and fake
// server alike). nghttp2 copies nothing from it after session creation, so it lives for the whole
// process. Each callback finds its channel through the session's `Unmanaged` user data and hands
// the event to the channel's delegate as Swift values.

import CNGHTTP2

/// A filled `nghttp2_session_callbacks` table.
final class H2SessionCallbacks: @unchecked Sendable {
    // Safe because the table is filled once in init and only read by nghttp2 afterwards.
    let pointer: OpaquePointer?

    /// The table every `H2TLSChannel` session uses.
    static let shared = H2SessionCallbacks()

    private init() {
        var callbacks: OpaquePointer? = nil
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, onFrameNotSent)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        pointer = callbacks
    }
}

/// The delegate of the channel whose session called back.
private func delegate(_ user: UnsafeMutableRawPointer?) -> (any H2SessionDelegate)? {
    guard let user else { return nil }
    return Unmanaged<H2TLSChannel>.fromOpaque(user).takeUnretainedValue().delegate
}

private func frame(_ header: nghttp2_frame_hd) -> H2Frame {
    let kind: H2Frame.Kind = switch UInt32(header.type) {
    case NGHTTP2_DATA.rawValue: .data
    case NGHTTP2_HEADERS.rawValue: .headers
    case NGHTTP2_SETTINGS.rawValue: .settings
    case NGHTTP2_PING.rawValue: .ping
    case NGHTTP2_GOAWAY.rawValue: .goAway
    default: .other(header.type)
    }
    return H2Frame(kind: kind, stream: header.stream_id, flags: header.flags)
}

private let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, user in
    guard let delegate = delegate(user), let frame, UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return 0 }
    delegate.h2StreamBegan(frame.pointee.hd.stream_id)
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, user in
    guard let delegate = delegate(user), let frame, let name, let value else { return 0 }
    delegate.h2Header(
        name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
        value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self),
        stream: frame.pointee.hd.stream_id
    )
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, stream, data, length, user in
    guard let delegate = delegate(user), let data else { return 0 }
    delegate.h2Data(UnsafeBufferPointer(start: data, count: length), stream: stream)
    return 0
}

private let onFrameReceived: nghttp2_on_frame_recv_callback = { _, received, user in
    guard let delegate = delegate(user), let received else { return 0 }
    delegate.h2FrameReceived(frame(received.pointee.hd))
    return 0
}

private let onFrameNotSent: nghttp2_on_frame_not_send_callback = { _, unsent, _, user in
    guard let user, let unsent else { return 0 }
    let channel = Unmanaged<H2TLSChannel>.fromOpaque(user).takeUnretainedValue()
    let notSent = frame(unsent.pointee.hd)
    // A request whose HEADERS never left will never ask for its body.
    if notSent.kind == .headers { channel.discardBody(stream: notSent.stream) }
    channel.delegate?.h2FrameNotSent(notSent)
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, stream, errorCode, user in
    guard let user else { return 0 }
    let channel = Unmanaged<H2TLSChannel>.fromOpaque(user).takeUnretainedValue()
    channel.discardBody(stream: stream)
    channel.delegate?.h2StreamClosed(stream, error: H2ErrorCode(rawValue: errorCode))
    return 0
}

extension [UInt8] {
    /// Appends a DATA chunk while fewer than `limit` bytes are held: what a misbehaving peer can
    /// make us keep stays bounded (by `limit` plus one chunk).
    package mutating func appendReceived(_ chunk: UnsafeBufferPointer<UInt8>, limit: Int) {
        guard count < limit else { return }
        append(contentsOf: chunk)
    }
}

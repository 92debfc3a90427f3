// nghttp2 callbacks for `H2ClientConnection`. They run inside nghttp2_session_mem_recv/mem_send on
// the I/O thread and reach the connection through the session's `Unmanaged` user data.

import CNGHTTP2

/// The one callbacks table shared by every client session.
final class H2ClientCallbacks: @unchecked Sendable {
    // Safe because: the table is filled once in init and only read by nghttp2 afterwards.
    let pointer: OpaquePointer?

    static let shared = H2ClientCallbacks()

    private init() {
        var callbacks: OpaquePointer? = nil
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, onFrameNotSent)
        pointer = callbacks
    }
}

private func connection(_ user: UnsafeMutableRawPointer?) -> H2ClientConnection? {
    guard let user else { return nil }
    return Unmanaged<H2ClientConnection>.fromOpaque(user).takeUnretainedValue()
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, user in
    guard let connection = connection(user), let frame, let name, let value else { return 0 }
    let stream = frame.pointee.hd.stream_id
    guard connection.streams[stream] != nil else { return 0 }
    let key = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
    let text = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    if key == ":status" { connection.streams[stream]?.status = Int(text) }
    if key == "apns-id" { connection.streams[stream]?.apnsID = text }
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, stream, data, length, user in
    guard let connection = connection(user), let data, connection.streams[stream] != nil else { return 0 }
    // Error bodies are a few dozen bytes; cap what a misbehaving server can make us hold.
    if (connection.streams[stream]?.body.count ?? 0) < 4096 {
        connection.streams[stream]?.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
    }
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, stream, errorCode, user in
    guard let connection = connection(user), let state = connection.streams.removeValue(forKey: stream) else { return 0 }
    // Once the status arrived APNs has answered, even if the stream ends abnormally afterwards.
    if let status = state.status {
        connection.events.append(.response(stream: stream, status: status, apnsID: state.apnsID, body: state.body))
    } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
        connection.events.append(.refused(stream: stream))
    } else {
        connection.events.append(.reset(stream: stream, errorCode: errorCode))
    }
    return 0
}

private let onFrameReceived: nghttp2_on_frame_recv_callback = { session, frame, user in
    guard let connection = connection(user), let frame else { return 0 }
    switch UInt32(frame.pointee.hd.type) {
    case NGHTTP2_SETTINGS.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
        connection.receivedSettings = true
        let limit = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
        connection.events.append(.settings(maxConcurrentStreams: limit))
    case NGHTTP2_GOAWAY.rawValue:
        connection.events.append(.goAway)
    case NGHTTP2_PING.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
        connection.pingSentAt = nil
    default:
        break
    }
    return 0
}

/// A request HEADERS frame nghttp2 would not send (e.g. after GOAWAY): the server never saw it.
private let onFrameNotSent: nghttp2_on_frame_not_send_callback = { _, frame, _, user in
    guard let connection = connection(user), let frame, UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return 0 }
    let stream = frame.pointee.hd.stream_id
    if connection.streams.removeValue(forKey: stream) != nil {
        connection.events.append(.refused(stream: stream))
    }
    return 0
}

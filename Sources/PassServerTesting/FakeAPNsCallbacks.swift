// nghttp2 server callbacks of the fake; they run on the fake's thread inside mem_recv/mem_send and
// reach the connection through the session's `Unmanaged` user data.

import CNGHTTP2

final class FakeAPNsCallbacks: @unchecked Sendable {
    // Safe because: filled once in init and only read by nghttp2 afterwards.
    let pointer: OpaquePointer?
    static let shared = FakeAPNsCallbacks()

    private init() {
        var callbacks: OpaquePointer? = nil
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        pointer = callbacks
    }
}

private func connection(_ user: UnsafeMutableRawPointer?) -> FakeAPNsConnection? {
    guard let user else { return nil }
    return Unmanaged<FakeAPNsConnection>.fromOpaque(user).takeUnretainedValue()
}

private let onBeginHeaders: nghttp2_on_begin_headers_callback = { session, frame, user in
    guard let connection = connection(user), let frame, UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return 0 }
    let stream = frame.pointee.hd.stream_id
    if let last = connection.goAwayLastStreamID, stream > last {
        // Above our GOAWAY's last stream id: the client treats it as refused and resends elsewhere.
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, NGHTTP2_REFUSED_STREAM.rawValue)
        return 0
    }
    connection.streams[stream] = FakeAPNsConnection.Stream(
        concurrent: connection.streams.count + 1, advertisedLimit: connection.advertisedLimit
    )
    connection.acceptedStreams += 1
    if let limit = connection.goAwayAfter, connection.acceptedStreams == limit {
        connection.goAwayLastStreamID = stream
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, NGHTTP2_NO_ERROR.rawValue, nil, 0)
    }
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, user in
    guard let connection = connection(user), let frame, let name, let value else { return 0 }
    let stream = frame.pointee.hd.stream_id
    guard connection.streams[stream] != nil else { return 0 }
    let key = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
    let text = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    connection.streams[stream]?.headers[key] = text
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, stream, data, length, user in
    guard let connection = connection(user), let data, connection.streams[stream] != nil else { return 0 }
    if (connection.streams[stream]?.body.count ?? 0) < 8192 {
        connection.streams[stream]?.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
    }
    return 0
}

private let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, user in
    guard let connection = connection(user), let frame else { return 0 }
    let type = UInt32(frame.pointee.hd.type)
    let ended = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    let stream = frame.pointee.hd.stream_id
    if ended, type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue, connection.streams[stream] != nil {
        connection.completed.append(stream)
    }
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, stream, _, user in
    guard let connection = connection(user) else { return 0 }
    connection.streams[stream] = nil
    connection.responseBodies[stream] = nil
    return 0
}

/// Copies the response body prepared for the stream and ends it.
let fakeResponseBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, user in
    guard let connection = connection(user), let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    let body = connection.responseBodies[stream] ?? []
    let count = min(length, body.count)
    body.withUnsafeBufferPointer { source in
        if let base = source.baseAddress { buffer.update(from: base, count: count) }
    }
    if count == body.count {
        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        connection.responseBodies[stream] = nil
    } else {
        connection.responseBodies[stream] = Array(body[count...])
    }
    return count
}

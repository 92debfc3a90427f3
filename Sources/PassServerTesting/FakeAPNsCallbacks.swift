// nghttp2 server callbacks of the fake; they run on the fake's thread inside mem_recv/mem_send and
// reach the connection through the session's `Unmanaged` user data.

import APNs
import CNGHTTP2

/// The one callbacks table shared by every connection of every fake.
let fakeAPNsCallbacks = H2SessionCallbacks { callbacks in
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
    nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
}

private func connection(_ user: UnsafeMutableRawPointer?) -> FakeAPNsConnection? {
    H2SessionCallbacks.owner(user, as: FakeAPNsConnection.self)
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
    connection.streams[stream]?.headers[h2Text(name, count: nameLength)] = h2Text(value, count: valueLength)
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, stream, data, length, user in
    guard let connection = connection(user), let data else { return 0 }
    connection.streams[stream]?.body.appendReceived(data, count: length, limit: 8192)
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
    connection.channel.discardBody(stream: stream)
    return 0
}

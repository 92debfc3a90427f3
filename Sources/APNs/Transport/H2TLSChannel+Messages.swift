// Submitting HTTP/2 requests, responses and control frames on an `H2TLSChannel`; the frames go out
// on the next `write()`. Bodies wait in the channel until nghttp2 asks for them (owning thread only).

import CNGHTTP2

extension H2TLSChannel {
    /// Queues a request with `body` on a new stream; returns the stream id, or a negative nghttp2
    /// error code (`H2TLSChannel.describe(http2Error:)`).
    package func submitRequest(headers: [(String, String)], body: [UInt8]) -> Int32 {
        guard let session else { return NGHTTP2_ERR_INVALID_STATE.rawValue }
        var provider = bodyProvider()
        let stream = withHeaderBlock(headers) { nva in
            nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, &provider, nil)
        }
        if stream > 0 { outgoingBodies[stream] = body }
        return stream
    }

    /// Queues the response on `stream`; without a body the HEADERS frame ends the stream.
    /// Returns 0, or a negative nghttp2 error code.
    @discardableResult
    package func submitResponse(stream: Int32, headers: [(String, String)], body: [UInt8]?) -> Int32 {
        guard let session else { return NGHTTP2_ERR_INVALID_STATE.rawValue }
        guard let body else {
            return withHeaderBlock(headers) { nva in nghttp2_submit_response(session, stream, nva.baseAddress, nva.count, nil) }
        }
        var provider = bodyProvider()
        let status = withHeaderBlock(headers) { nva in
            nghttp2_submit_response(session, stream, nva.baseAddress, nva.count, &provider)
        }
        if status == 0 { outgoingBodies[stream] = body }
        return status
    }

    /// Forgets what is left of a stream's body (the stream closed or was reset).
    package func discardBody(stream: Int32) {
        outgoingBodies[stream] = nil
    }

    /// Queues RST_STREAM for `stream` with `error` (`.cancel` for a request nobody waits for any
    /// more, `.refusedStream` for one the server will not process).
    package func resetStream(_ stream: Int32, error: H2ErrorCode) {
        guard let session else { return }
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, error.rawValue)
    }

    /// Queues GOAWAY: streams above `lastStream` will not be processed.
    package func submitGoAway(lastStream: Int32) {
        guard let session else { return }
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStream, H2ErrorCode.noError.rawValue, nil, 0)
    }

    /// Queues a PING; its acknowledgement arrives as a frame with `isAcknowledgement`.
    package func ping() {
        guard let session else { return }
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// True when nghttp2 has frames to send that `write()` has not taken yet.
    package var sessionWantsWrite: Bool {
        guard let session else { return false }
        return nghttp2_session_want_write(session) != 0
    }

    /// True when nghttp2 has nothing left to do (after GOAWAY, every stream finished), or there is
    /// no session.
    package var sessionIsFinished: Bool {
        guard let session else { return true }
        return nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS (nghttp2's default until the peer sends one).
    var remoteMaxConcurrentStreams: UInt32 {
        guard let session else { return 0 }
        return nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
    }

    /// A data provider whose source is this channel (unretained: the session dies with the channel).
    private func bodyProvider() -> nghttp2_data_provider {
        nghttp2_data_provider(source: nghttp2_data_source(ptr: Unmanaged.passUnretained(self).toOpaque()), read_callback: sendBody)
    }

    /// Calls `body` with an nghttp2 header array pointing into one contiguous buffer (nghttp2 copies it).
    private func withHeaderBlock<R>(_ headers: [(String, String)], _ body: (UnsafeBufferPointer<nghttp2_nv>) -> R) -> R {
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

/// Copies as much of the stream's waiting body as fits and ends the stream after the last byte.
private let sendBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, source, _ in
    guard let buffer, let flags, let pointer = source?.pointee.ptr else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    let channel = Unmanaged<H2TLSChannel>.fromOpaque(pointer).takeUnretainedValue()
    let body = channel.outgoingBodies[stream] ?? []
    let count = min(length, body.count)
    body.withUnsafeBufferPointer { source in
        if let base = source.baseAddress { buffer.update(from: base, count: count) }
    }
    if count == body.count {
        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        channel.outgoingBodies[stream] = nil
    } else {
        channel.outgoingBodies[stream] = Array(body[count...])
    }
    return count
}

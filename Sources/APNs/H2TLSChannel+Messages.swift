// Submitting HTTP/2 requests and responses on an `H2TLSChannel`; the frames go out on the next
// `write()`. Bodies wait in the channel until nghttp2 asks for them (owning thread only).

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

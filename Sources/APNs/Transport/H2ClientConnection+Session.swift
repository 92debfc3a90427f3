// The HTTP/2 session's events for `H2ClientConnection`: answers, refusals and resets of streams,
// the server's SETTINGS, GOAWAY and PING acknowledgements, turned into `Event`s (I/O thread only).

extension H2ClientConnection: H2SessionDelegate {
    func h2Header(name: String, value: String, stream: Int32) {
        guard streams[stream] != nil else { return }
        if name == ":status" { streams[stream]?.status = Int(value) }
        if name == "apns-id" { streams[stream]?.apnsID = value }
    }

    func h2Data(_ chunk: UnsafeBufferPointer<UInt8>, stream: Int32) {
        // Error bodies are a few dozen bytes; cap what a misbehaving server can make us hold.
        streams[stream]?.body.appendReceived(chunk, limit: 4096)
    }

    func h2StreamClosed(_ stream: Int32, error: H2ErrorCode) {
        guard let state = streams.removeValue(forKey: stream) else { return }
        // Once the status arrived APNs has answered, even if the stream ends abnormally afterwards.
        if let status = state.status {
            events.append(.response(stream: stream, status: status, apnsID: state.apnsID, body: state.body))
        } else if error == .refusedStream {
            events.append(.refused(stream: stream))
        } else {
            events.append(.reset(stream: stream, errorCode: error.rawValue))
        }
    }

    func h2FrameReceived(_ frame: H2Frame) {
        switch frame.kind {
        case .settings where !frame.isAcknowledgement:
            receivedSettings = true
            events.append(.settings(maxConcurrentStreams: channel.remoteMaxConcurrentStreams))
        case .goAway:
            events.append(.goAway)
        case .ping where frame.isAcknowledgement:
            pingSentAt = nil
        default:
            break
        }
    }

    /// A request HEADERS frame nghttp2 would not send (e.g. after GOAWAY): the server never saw it.
    func h2FrameNotSent(_ frame: H2Frame) {
        guard frame.kind == .headers, streams.removeValue(forKey: frame.stream) != nil else { return }
        events.append(.refused(stream: frame.stream))
    }
}

// The HTTP/2 session's events for a fake connection: requests begin, collect their headers and
// body, and complete (fake's thread only, inside the channel's read/write).

import APNs

extension FakeAPNsConnection: H2SessionDelegate {
    func h2StreamBegan(_ stream: Int32) {
        if let last = goAwayLastStreamID, stream > last {
            // Above our GOAWAY's last stream id: the client treats it as refused and resends elsewhere.
            channel.resetStream(stream, error: .refusedStream)
            return
        }
        streams[stream] = Stream(concurrent: streams.count + 1, advertisedLimit: advertisedLimit)
        acceptedStreams += 1
        if let limit = goAwayAfter, acceptedStreams == limit {
            goAwayLastStreamID = stream
            channel.submitGoAway(lastStream: stream)
        }
    }

    func h2Header(name: String, value: String, stream: Int32) {
        guard streams[stream] != nil else { return }
        streams[stream]?.headers[name] = value
    }

    func h2Data(_ chunk: UnsafeBufferPointer<UInt8>, stream: Int32) {
        streams[stream]?.body.appendReceived(chunk, limit: 8192)
    }

    func h2FrameReceived(_ frame: H2Frame) {
        if frame.endsStream, streams[frame.stream] != nil { completed.append(frame.stream) }
        if frame.kind == .ping, !frame.isAcknowledgement { pingsReceived += 1 }
    }

    func h2StreamClosed(_ stream: Int32, error: H2ErrorCode) {
        streams[stream] = nil
    }
}

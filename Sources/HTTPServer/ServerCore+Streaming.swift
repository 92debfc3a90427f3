import CMicroHTTPD
import Logging

/// Streamed responses (`BodyStream`) through libmicrohttpd's content-reader callback.
extension ServerCore {
    /// A libmicrohttpd response that pulls its body from `stream`; nil if one cannot be made.
    func streamedResponse(_ stream: BodyStream, requestID: String) -> OpaquePointer? {
        let state = Unmanaged.passRetained(StreamState(stream: stream, logger: logger, requestID: requestID))
        guard let handle = MHD_create_response_from_callback(Self.unknownSize, Self.streamBlockSize, streamReader, state.toOpaque(), streamFree)
        else {
            state.release()
            return nil
        }
        return handle
    }

    /// `MHD_SIZE_UNKNOWN` (a cast macro Swift does not import): the body is sent chunked.
    static let unknownSize = UInt64.max
    /// The most libmicrohttpd asks the stream for at once.
    static let streamBlockSize = 64 << 10
}

/// The piece of a stream being sent and how far. libmicrohttpd calls a response's reader, and
/// then its free callback, from the one worker thread that serves the connection, one call at a
/// time; the state lives as long as the response (retained until the free callback).
final class StreamState: @unchecked Sendable {
    // Safe because only libmicrohttpd's callbacks for one response touch it, and libmicrohttpd
    // makes those calls one at a time from the connection's worker thread.
    private let stream: BodyStream
    private let logger: Logger
    private let requestID: String
    private var piece: [UInt8] = []
    private var offset = 0

    init(stream: BodyStream, logger: Logger, requestID: String) {
        self.stream = stream
        self.logger = logger
        self.requestID = requestID
    }

    /// Copies up to `max` bytes to `buffer`: the count, or -1 at the end, or -2 after an error
    /// (`MHD_CONTENT_READER_END_OF_STREAM`, `MHD_CONTENT_READER_END_WITH_ERROR`).
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        while offset == piece.count {
            do {
                guard let next = try stream.next() else { return MHD_CONTENT_READER_END_OF_STREAM }
                piece = next
                offset = 0
            } catch {
                logger.error("streamed response failed; the connection is closed", ["request.id": requestID, "error": "\(error)"])
                return MHD_CONTENT_READER_END_WITH_ERROR
            }
        }
        let count = min(max, piece.count - offset)
        piece.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// libmicrohttpd asks for more of a streamed body.
let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return MHD_CONTENT_READER_END_WITH_ERROR }
    return Unmanaged<StreamState>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

/// libmicrohttpd is done with a streamed response (sent, aborted or never queued).
let streamFree: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<StreamState>.fromOpaque(cls).release()
}

import Foundation
import HTTPServer
import PassImages
import Synchronization

/// The scanner page's camera frames, read on the server for browsers that find no QR codes
/// themselves (`POST /admin/scan/decode`; iPhone Safari has no `BarcodeDetector`).
///
/// A frame is decoded on the HTTP engine's thread that received it (libvips and libzbar block;
/// `FrameReader`), at most `limit` at once: a phone sends a few frames a second and drops one
/// answered 503, while check-ins and pages keep the other threads and cores.
final class FrameDecoding: Sendable {
    /// Frames read at once; more are answered 503 `busy` at once (one a core, at least two).
    let limit: Int
    private let inFlight = Mutex(0)

    init(limit: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)) {
        self.limit = limit
    }

    /// The codes in `body` (a PNG or JPEG frame), answered as `{"codes": [...]}`; a frame that is
    /// no image, damaged, or too large is a 400 (413 for too many bytes), never a 500.
    func answer(_ body: [UInt8]) throws -> Response {
        let admitted = inFlight.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw HTTPError(
                status: 503, code: "busy", message: "The server is reading other frames; send the next one.", headers: ["Retry-After": "1"]
            )
        }
        defer { inFlight.withLock { $0 -= 1 } }
        let codes: [String]
        do {
            codes = try FrameReader.codes(in: body)
        } catch {
            throw Self.httpError(error)
        }
        var response = Response.json(FrameCodesBody(codes: codes), encoder: .api)
        response.headers.replace(name: "Cache-Control", value: "private, no-store")
        return response
    }

    /// A frame's refusal as HTTP: the sender's problems are 400 (413 for the byte size).
    static func httpError(_ error: FrameError) -> any Error {
        switch error {
        case .fileTooLarge:
            HTTPError(status: 413, code: "payload_too_large", message: error.description)
        case .dimensionsTooLarge:
            HTTPError(status: 400, code: "frame_too_large", message: error.description)
        case .empty, .notAnImage, .undecodable:
            HTTPError(status: 400, code: "invalid_frame", message: error.description)
        case .processingFailed:
            error
        }
    }
}

/// The codes found in one frame.
struct FrameCodesBody: Encodable {
    /// The QR codes' messages, in the order found; empty when there is none.
    var codes: [String]
}

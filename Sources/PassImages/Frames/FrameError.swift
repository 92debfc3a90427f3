/// Why a camera frame could not be read for barcodes: one case per problem, each with a sentence
/// for the scanner page's log and error body.
///
/// Every case but `processingFailed` is the sender's (an HTTP 400 at the boundary, 413 for too many
/// bytes); `processingFailed` is ours. `description` never quotes the frame's bytes; libvips' own
/// words are kept for `debugDescription` only.
public enum FrameError: Error, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// No bytes at all.
    case empty
    /// More bytes than `FrameReader.maximumFileBytes`.
    case fileTooLarge(byteCount: Int)
    /// Neither PNG nor JPEG (text, an archive, noise, or another image format, named when known).
    case notAnImage(format: String?)
    /// PNG or JPEG by its first bytes, but libvips cannot read it (damaged or truncated).
    case undecodable(ImageFormat, reason: String)
    /// Wider or taller than `FrameReader.maximumPixelSide`, or more pixels than
    /// `FrameReader.maximumPixelCount`: refused from the header, before decoding.
    case dimensionsTooLarge(ImageSize)
    /// libvips or libzbar failed on a frame that passed the checks.
    case processingFailed(reason: String)

    /// Whether the sender can fix it (everything but `processingFailed`).
    public var isSenderProblem: Bool {
        if case .processingFailed = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .empty:
            "The frame is empty; send a PNG or JPEG image."
        case .fileTooLarge(let byteCount):
            "The frame is \(byteCount) bytes; a frame may be at most \(FrameReader.maximumFileBytes) bytes."
        case .notAnImage(let format?):
            "The frame is a \(format) image; send a PNG or JPEG image instead."
        case .notAnImage(nil):
            "The frame is not an image; send a PNG or JPEG image."
        case .undecodable(let format, _):
            "The frame starts like a \(format) image but is damaged or cut short; it cannot be read."
        case .dimensionsTooLarge(let size):
            "The frame is \(size) pixels; a frame may be at most \(FrameReader.maximumPixelSide) pixels on each side "
                + "and \(FrameReader.maximumPixelCount) pixels in all (scale it down first)."
        case .processingFailed:
            "The frame could not be processed."
        }
    }

    /// `description`, with libvips' reason where there is one.
    public var debugDescription: String {
        switch self {
        case .undecodable(_, let reason), .processingFailed(let reason): "\(description) (\(reason))"
        default: description
        }
    }
}

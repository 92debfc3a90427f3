public import PassBundle
/// Why an upload was refused or could not be scaled: one case per problem, each with a sentence
/// for the person who uploaded it.
///
/// Every case but `processingFailed` is the uploader's to fix (an HTTP 400 at the boundary);
/// `processingFailed` is ours (a 500). `description` never quotes the file's bytes; libvips' own
/// words are kept for `debugDescription` only.
public enum PassImageError: Error, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// No bytes at all.
    case empty
    /// More bytes than `PassImageCheck.maximumFileBytes`.
    case fileTooLarge(byteCount: Int)
    /// Neither PNG nor JPEG nor any other image format we recognise (text, an archive, noise).
    case notAnImage
    /// An image, but in a format we do not take (`"GIF"`, `"WebP"`, `"SVG"` …).
    case unsupportedFormat(String)
    /// PNG or JPEG by its first bytes, but libvips cannot read it (damaged or truncated).
    case undecodable(ImageFormat, reason: String)
    /// Wider or taller than `PassImageCheck.maximumPixelSide`, or more pixels than
    /// `PassImageCheck.maximumPixelCount`: refused from the header, before decoding.
    case dimensionsTooLarge(ImageSize)
    /// Proportions `kind`'s shape does not take.
    case wrongAspectRatio(PassImageKind, ImageSize)
    /// Fewer pixels than `kind` needs at @3x.
    case tooSmall(PassImageKind, ImageSize)
    /// libvips or the digest failed on an image that passed the checks.
    case processingFailed(reason: String)

    /// A stable, machine-readable name for the case (`wrongAspectRatio`).
    public var code: String {
        switch self {
        case .empty: "empty"
        case .fileTooLarge: "fileTooLarge"
        case .notAnImage: "notAnImage"
        case .unsupportedFormat: "unsupportedFormat"
        case .undecodable: "undecodable"
        case .dimensionsTooLarge: "dimensionsTooLarge"
        case .wrongAspectRatio: "wrongAspectRatio"
        case .tooSmall: "tooSmall"
        case .processingFailed: "processingFailed"
        }
    }

    /// Whether the uploader can fix it with another file (everything but `processingFailed`).
    public var isUploadProblem: Bool {
        if case .processingFailed = self { return false }
        return true
    }

    /// The problem in one sentence, naming the rule and what the file has.
    public var description: String {
        switch self {
        case .empty:
            return "The file is empty; upload a PNG or JPEG image."
        case .fileTooLarge(let byteCount):
            return "The file is \(byteCount) bytes; an image may be at most \(PassImageCheck.maximumFileBytes) bytes (5 MiB)."
        case .notAnImage:
            return "The file is not an image; upload a PNG or JPEG image."
        case .unsupportedFormat(let format):
            return "The file is a \(format) image; upload a PNG or JPEG image instead."
        case .undecodable(let format, _):
            return "The file starts like a \(format) image but is damaged or cut short; it cannot be read."
        case .dimensionsTooLarge(let size):
            return "The image is \(size) pixels; an image may be at most \(PassImageCheck.maximumPixelSide) pixels on each side "
                + "and \(PassImageCheck.maximumPixelCount / 1_000_000) million pixels in all."
        case .wrongAspectRatio(let kind, let size):
            switch kind.shape {
            case .exact(let box):
                let within = Int((PassImageShape.aspectTolerance * 100).rounded())
                return "The \(kind) must be \(box.width):\(box.height) (width:height, within \(within) %); this image is \(size)."
            case .fitting(_, let ratios):
                let range = ratios.map { " between \(Self.ratio($0.lowerBound)) and \(Self.ratio($0.upperBound))" } ?? ""
                return "The \(kind) must be\(range) (width:height); this image is \(size)."
            }
        case .tooSmall(let kind, let size):
            let shape = kind.shape
            let minimum = shape.minimumUpload
            switch shape {
            case .exact(let box):
                return "The \(kind) must be at least \(minimum) pixels (three times its \(box)-point size); this image is \(size)."
            case .fitting(let box, _):
                return "The \(kind) must be at least \(minimum.width) pixels wide or \(minimum.height) pixels high "
                    + "(three times its \(box)-point box); this image is \(size)."
            }
        case .processingFailed:
            return "The image could not be processed."
        }
    }

    /// `description`, with libvips' reason where there is one.
    public var debugDescription: String {
        switch self {
        case .undecodable(_, let reason), .processingFailed(let reason): "\(description) (\(reason))"
        default: description
        }
    }

    /// `2:3` for 0.666…, `3:2` for 1.5: the smallest whole-number ratio up to 20:20, else decimals.
    private static func ratio(_ value: Double) -> String {
        for denominator in 1...20 {
            let numerator = (value * Double(denominator)).rounded()
            if numerator >= 1, abs(numerator / Double(denominator) - value) < 1e-9 { return "\(Int(numerator)):\(denominator)" }
        }
        return "\(value):1"
    }
}

/// The upload formats we take. Everything is written out as PNG.
public enum ImageFormat: String, Sendable, Hashable, CustomStringConvertible {
    case png
    case jpeg

    /// `PNG`, `JPEG`.
    public var description: String { rawValue.uppercased() }

    /// The libvips loader that must have read the header (`vips-loader`).
    var loaderName: String {
        switch self {
        case .png: "pngload_buffer"
        case .jpeg: "jpegload_buffer"
        }
    }
}

/// What a file's first bytes say it is, before any decoder sees it.
enum FormatSniffer {
    /// What `sniff` found.
    enum Verdict: Equatable {
        /// One of ours.
        case accepted(ImageFormat)
        /// An image format we refuse, by name.
        case refused(String)
        /// Nothing we recognise.
        case unknown
    }

    /// PNG's eight-byte signature; JPEG's start-of-image marker and the next marker's first byte.
    private static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]

    /// Image formats people try to upload instead, each by its signature, so the refusal names them.
    private static let refused: [(name: String, matches: @Sendable (ArraySlice<UInt8>) -> Bool)] = [
        ("GIF", { $0.starts(with: Array("GIF87a".utf8)) || $0.starts(with: Array("GIF89a".utf8)) }),
        ("WebP", { $0.starts(with: Array("RIFF".utf8)) && $0.dropFirst(8).starts(with: Array("WEBP".utf8)) }),
        ("HEIC", { isoBrand($0, in: ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]) }),
        ("AVIF", { isoBrand($0, in: ["avif", "avis"]) }),
        ("TIFF", { $0.starts(with: [0x49, 0x49, 0x2A, 0x00]) || $0.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) }),
        ("BMP", { $0.starts(with: Array("BM".utf8)) && $0.count >= 26 }),
        ("ICO", { $0.starts(with: [0x00, 0x00, 0x01, 0x00]) }),
        ("JPEG 2000", { $0.starts(with: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || $0.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) }),
        ("JPEG XL", { $0.starts(with: [0xFF, 0x0A]) || $0.starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) }),
        ("PDF", { $0.starts(with: Array("%PDF-".utf8)) }),
        ("SVG", isSVG),
    ]

    /// The verdict on `bytes`.
    static func sniff(_ bytes: [UInt8]) -> Verdict {
        let head = bytes.prefix(4096)
        if head.starts(with: png) { return .accepted(.png) }
        if head.starts(with: jpeg) { return .accepted(.jpeg) }
        if let format = refused.first(where: { $0.matches(head) }) { return .refused(format.name) }
        return .unknown
    }

    /// An ISO base media file (`....ftyp<brand>`) whose major brand is one of `brands`.
    private static func isoBrand(_ head: ArraySlice<UInt8>, in brands: Set<String>) -> Bool {
        guard head.count >= 12, head.dropFirst(4).starts(with: Array("ftyp".utf8)) else { return false }
        let start = head.startIndex + 8
        return brands.contains(String(decoding: head[start..<(start + 4)], as: UTF8.self))
    }

    /// Text that opens with markup (after an optional byte-order mark and white space) and has an
    /// `<svg` element near its start.
    private static func isSVG(_ head: ArraySlice<UInt8>) -> Bool {
        var text = head
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        text = text.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard text.first == UInt8(ascii: "<") else { return false }
        return String(decoding: text, as: UTF8.self).lowercased().contains("<svg")
    }
}

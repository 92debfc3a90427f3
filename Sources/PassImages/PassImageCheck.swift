public import PassBundle
internal import CVips

/// The gate every upload passes before it is scaled: format, byte size, pixel dimensions, then the
/// kind's proportions and minimum size, each refusal its own `PassImageError`.
///
/// Only the header is decoded here, so a small file that claims enormous dimensions (a
/// decompression bomb) is refused before any pixel memory is spent. Damaged pixel data further in
/// is found by `CheckedImage.scaled()`, which reports it as `.undecodable` too.
public enum PassImageCheck {
    /// The largest upload in bytes: 5 MiB, ample for a 1125×294 strip or a 540×660 background even
    /// as an uncompressed-looking photo, and small enough to hold several in memory at once.
    public static let maximumFileBytes = 5 * 1024 * 1024
    /// The longest side in pixels an upload may have: phone cameras' photos fit.
    public static let maximumPixelSide = 8192
    /// The most pixels an upload may have (40 million; 160 MB as RGBA if fully decoded).
    public static let maximumPixelCount = 40_000_000

    /// `bytes` as an image of `kind`, or the first rule it breaks, checked in this order: empty,
    /// byte size, format (PNG or JPEG by signature, confirmed by libvips reading the header with
    /// the matching loader), pixel dimensions, proportions, minimum size. Sizes are taken upright
    /// (a JPEG whose EXIF orientation turns it is measured turned).
    public static func check(_ bytes: [UInt8], as kind: PassImageKind) throws(PassImageError) -> CheckedImage {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maximumFileBytes else { throw .fileTooLarge(byteCount: bytes.count) }
        let format: ImageFormat
        switch FormatSniffer.sniff(bytes) {
        case .accepted(let sniffed): format = sniffed
        case .refused(let name): throw .unsupportedFormat(name)
        case .unknown: throw .notAnImage
        }
        try Vips.start()
        let size = try uprightSize(of: bytes, format: format)
        guard size.width <= maximumPixelSide, size.height <= maximumPixelSide, size.width * size.height <= maximumPixelCount else {
            throw .dimensionsTooLarge(size)
        }
        let shape = kind.shape
        guard shape.acceptsProportions(of: size) else { throw .wrongAspectRatio(kind, size) }
        guard shape.isLargeEnough(size) else { throw .tooSmall(kind, size) }
        return CheckedImage(kind: kind, format: format, size: size, bytes: bytes)
    }

    /// The upright pixel size from the header alone, read by the loader for `format` and no other.
    private static func uprightSize(of bytes: [UInt8], format: ImageFormat) throws(PassImageError) -> ImageSize {
        let result = bytes.withUnsafeBytes { raw -> Result<ImageSize, PassImageError> in
            // The image borrows `raw`: it is released before this closure returns.
            guard let image = VipsImageReference(shim_vips_image_new_from_buffer(raw.baseAddress, raw.count)) else {
                return .failure(.undecodable(format, reason: Vips.lastError()))
            }
            let loader = image.string("vips-loader")
            guard loader == format.loaderName else {
                return .failure(.undecodable(format, reason: "read by \(loader ?? "an unknown loader") instead of \(format.loaderName)"))
            }
            guard image.width > 0, image.height > 0 else { return .failure(.undecodable(format, reason: "no pixels")) }
            return .success(image.uprightSize)
        }
        return try result.get()
    }
}

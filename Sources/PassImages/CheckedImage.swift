public import PassBundle
internal import CVips

/// An upload that passed `PassImageCheck` for its kind, ready to be scaled.
public struct CheckedImage: Sendable, Equatable {
    /// What the image is for.
    public let kind: PassImageKind
    /// The upload's format.
    public let format: ImageFormat
    /// Upright pixel size (after EXIF rotation).
    public let size: ImageSize
    /// The upload as received.
    public let bytes: [UInt8]

    init(kind: PassImageKind, format: ImageFormat, size: ImageSize, bytes: [UInt8]) {
        self.kind = kind
        self.format = format
        self.size = size
        self.bytes = bytes
    }

    /// The @1x, @2x and @3x PNGs: each decoded afresh from the upload (JPEGs shrink while they
    /// decode), turned upright, scaled to `kind.shape.pixelSize(at:from:)` (an `exact` kind filling
    /// its box with a centred crop, a `fitting` kind keeping its proportions), converted to 8-bit
    /// sRGB, and written without metadata: no EXIF, XMP, ICC profile or text chunks survive.
    /// `colors` says whether the files may be palette PNGs (`PassImageColors`).
    ///
    /// Throws `.undecodable` when the pixel data turns out damaged, `.processingFailed` when the
    /// digest cannot be computed. Deterministic: the same upload gives the same bytes.
    public func scaled(_ colors: PassImageColors = .palette) throws(PassImageError) -> PassImageSet {
        try Vips.start()
        var files: [PassImageFile] = []
        for scale in PassImageShape.scales {
            let target = kind.shape.pixelSize(at: scale, from: size)
            files.append(PassImageFile(kind: kind, scale: scale, size: target, png: try png(of: target, colors)))
        }
        return try PassImageSet(kind: kind, files: files)
    }

    /// One PNG of exactly `target` pixels.
    private func png(of target: ImageSize, _ colors: PassImageColors) throws(PassImageError) -> [UInt8] {
        let crop: Int32
        switch kind.shape {
        case .exact: crop = 1
        case .fitting: crop = 0
        }
        let result = bytes.withUnsafeBytes { raw -> Result<[UInt8], PassImageError> in
            // The thumbnail borrows `raw` until its pixels are computed, which `pngBytes` does here.
            var output: UnsafeMutablePointer<VipsImage>?
            let source = UnsafeMutableRawPointer(mutating: raw.baseAddress)
            guard shim_vips_thumbnail_buffer(source, raw.count, &output, Int32(target.width), Int32(target.height), crop) == 0,
                let image = VipsImageReference(output)
            else { return .failure(.undecodable(format, reason: Vips.lastError())) }
            guard image.width == target.width, image.height == target.height else {
                return .failure(.processingFailed(reason: "libvips made \(image.width)×\(image.height) instead of \(target)"))
            }
            guard let png = image.pngBytes(colors) else { return .failure(.undecodable(format, reason: Vips.lastError())) }
            return .success(png)
        }
        return try result.get()
    }
}

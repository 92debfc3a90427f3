import CVips
import PassImages
import Testing

/// Image files made at test time with libvips: a gradient of the requested size, encoded in the
/// requested format, optionally carrying metadata. Nothing is committed.
enum TestImage {
    /// A file format libvips writes for us.
    enum Encoding {
        case png, jpeg, gif, webp
    }

    /// A gradient of `width`×`height` (first band across, second down), encoded as `encoding`:
    /// 3 bands (RGB) unless `bands` says 1 (grey) or 4 (RGBA), 16 bits a sample if `sixteenBit`.
    ///
    /// `exifArtist` puts that text into the EXIF block (JPEG); `pngComment` into a text chunk
    /// (PNG); `orientation` sets the EXIF orientation tag (JPEG).
    static func make(
        _ width: Int, _ height: Int, as encoding: Encoding = .png,
        bands: Int = 3, sixteenBit: Bool = false,
        exifArtist: String? = nil, pngComment: String? = nil, orientation: Int? = nil
    ) throws -> [UInt8] {
        try Vips.start()
        let maximum = sixteenBit ? 65535 : 255
        var samples = [Int](repeating: maximum / 2, count: width * height * bands)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * bands
                samples[offset] = x * maximum / max(1, width - 1)
                if bands > 1 { samples[offset + 1] = y * maximum / max(1, height - 1) }
            }
        }
        let image: TestVipsImage
        if sixteenBit {
            let pixels = samples.map { UInt16($0) }
            image = try #require(TestVipsImage(pixels.withUnsafeBytes {
                vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_USHORT)
            }))
            // The header's interpretation (`Type`), which tells encoders these are 16-bit colours.
            image.pointer.pointee.Type = bands >= 3 ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_GREY16
        } else {
            let pixels = samples.map { UInt8($0) }
            image = try #require(TestVipsImage(pixels.withUnsafeBytes {
                vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
            }))
        }
        if let exifArtist { vips_image_set_string(image.pointer, "exif-ifd0-Artist", exifArtist) }
        if let pngComment { vips_image_set_string(image.pointer, "png-comment-0-Comment", pngComment) }
        if let orientation { vips_image_set_int(image.pointer, "orientation", Int32(orientation)) }
        return try save(image, as: encoding)
    }

    /// Greyscale `pixels` (a `QRFrame`'s) encoded as `encoding` by libvips: one band, or the grey
    /// repeated in three (what a browser's canvas writes) when `colour`.
    static func encode(grey pixels: [UInt8], _ width: Int, _ height: Int, as encoding: Encoding, colour: Bool = false) throws -> [UInt8] {
        try Vips.start()
        let samples = colour ? pixels.flatMap { [$0, $0, $0] } : pixels
        let image = try #require(TestVipsImage(samples.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), colour ? 3 : 1, VIPS_FORMAT_UCHAR)
        }))
        image.pointer.pointee.Type = colour ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W
        return try save(image, as: encoding)
    }

    /// Interleaved 8-bit sRGB `samples` (3 bands, or 4 with alpha) of `width`×`height` encoded as
    /// `encoding` by libvips.
    static func encode(rgb samples: [UInt8], _ width: Int, _ height: Int, bands: Int = 3, as encoding: Encoding = .png) throws -> [UInt8] {
        try Vips.start()
        let image = try #require(TestVipsImage(samples.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
        }))
        image.pointer.pointee.Type = VIPS_INTERPRETATION_sRGB
        return try save(image, as: encoding)
    }

    /// `count` deterministic pseudo-random bytes.
    static func noise(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// A gradient with fine noise of `width`×`height`: it compresses about as badly as a
    /// photograph, deterministic.
    static func photographLike(_ width: Int, _ height: Int) throws -> [UInt8] {
        let noise = noise(width * height)
        var samples = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let grain = Int(noise[y * width + x] & 0x1F)
                let offset = (y * width + x) * 3
                samples[offset] = UInt8(min(255, x * 200 / width + grain))
                samples[offset + 1] = UInt8(min(255, y * 200 / height + grain))
                samples[offset + 2] = UInt8(min(255, 120 + grain))
            }
        }
        return try encode(rgb: samples, width, height)
    }

    /// Every pixel of a PNG decoded by libvips, as 8-bit samples of its bands (a palette PNG
    /// decodes to RGB, or RGBA with transparency).
    static func pixels(_ png: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> (bands: Int, samples: [UInt8]) {
        try Vips.start()
        return try png.withUnsafeBytes { raw in
            let image = try #require(TestVipsImage(shim_vips_image_new_from_buffer(raw.baseAddress, raw.count)),
                "libvips cannot open the PNG: \(errorText())", sourceLocation: sourceLocation)
            var size = 0
            let pixels = try #require(vips_image_write_to_memory(image.pointer, &size), "libvips cannot decode the PNG: \(errorText())",
                sourceLocation: sourceLocation)
            defer { g_free(pixels) }
            return (Int(vips_image_get_bands(image.pointer)), Array(UnsafeRawBufferPointer(start: pixels, count: size)))
        }
    }

    /// `image` written as `encoding` by libvips, with the encoder's defaults.
    private static func save(_ image: TestVipsImage, as encoding: Encoding) throws -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32 = switch encoding {
        case .png: shim_vips_pngsave_buffer(image.pointer, &buffer, &length)
        case .jpeg: shim_vips_jpegsave_buffer(image.pointer, &buffer, &length)
        case .gif: shim_vips_gifsave_buffer(image.pointer, &buffer, &length)
        case .webp: shim_vips_webpsave_buffer(image.pointer, &buffer, &length)
        }
        try #require(status == 0 && buffer != nil, "libvips could not encode \(encoding): \(errorText())")
        defer { g_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }

    /// What a PNG output decodes to, every pixel read.
    struct Decoded {
        let width: Int
        let height: Int
        let bands: Int
        let loader: String
    }

    /// Decodes `bytes` fully with libvips (a damaged file fails here); throws if it cannot.
    static func decode(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> Decoded {
        try Vips.start()
        return try bytes.withUnsafeBytes { raw in
            let image = try #require(TestVipsImage(shim_vips_image_new_from_buffer(raw.baseAddress, raw.count)),
                "libvips cannot open the output: \(errorText())", sourceLocation: sourceLocation)
            var size = 0
            let pixels = vips_image_write_to_memory(image.pointer, &size)
            try #require(pixels != nil, "libvips cannot decode the output: \(errorText())", sourceLocation: sourceLocation)
            g_free(pixels)
            var loader: UnsafePointer<CChar>?
            _ = vips_image_get_string(image.pointer, "vips-loader", &loader)
            return Decoded(
                width: Int(vips_image_get_width(image.pointer)), height: Int(vips_image_get_height(image.pointer)),
                bands: Int(vips_image_get_bands(image.pointer)), loader: loader.map { String(cString: $0) } ?? "")
        }
    }

    /// libvips' error buffer, emptied.
    static func errorText() -> String {
        guard let copy = vips_error_buffer_copy() else { return "" }
        defer { g_free(copy) }
        return String(cString: copy)
    }
}

/// A `VipsImage` reference owned by a test, released on deinit.
final class TestVipsImage {
    let pointer: UnsafeMutablePointer<VipsImage>

    init?(_ pointer: UnsafeMutablePointer<VipsImage>?) {
        guard let pointer else { return nil }
        self.pointer = pointer
    }

    deinit { g_object_unref(pointer) }
}

// The QR codes in a camera frame, for the scanner page on phones whose browser finds none itself:
// libvips decodes the frame to 8-bit luminance, libzbar finds the codes in it.
//
// Threading: both libraries block the calling thread while they work (a 640×480 frame takes a few
// milliseconds; BENCHMARKS.md has the numbers): call from the HTTP engine's threads or a dedicated
// one, not from Swift's cooperative pool. libvips is shared with the pass images (`Vips.start`, the
// same loaders allowed: PNG and JPEG only); each call makes its own zbar image scanner, which is
// not safe to share between threads and costs little next to the scan.
//
// Memory: the header is read first, so a small file claiming a huge frame is refused before any
// pixel memory is spent; a frame within the limits holds at most its bytes, one greyscale copy
// (2 MB at the largest) and zbar's working set.

internal import CVips
internal import CZbar

/// Finds the QR codes in camera frames (PNG or JPEG, as a browser's canvas encodes them).
public enum FrameReader {
    /// The largest frame in bytes: a 1920×1080 JPEG of a busy scene fits; the scanner page sends
    /// 640×480 at most (some 50 KB).
    public static let maximumFileBytes = 1 << 20
    /// The longest side in pixels a frame may have.
    public static let maximumPixelSide = 1920
    /// The most pixels a frame may have (1920×1080).
    public static let maximumPixelCount = 1920 * 1080
    /// The most codes reported from one frame.
    public static let maximumCodes = 8

    /// The QR codes' messages in `bytes`, in the order zbar found them, duplicates removed; empty
    /// when there is none. Checked in this order: empty, byte size, format (PNG or JPEG by its
    /// signature, confirmed by the loader libvips picked), pixel dimensions, then decoded.
    public static func codes(in bytes: [UInt8]) throws(FrameError) -> [String] {
        let frame = try greyscale(bytes)
        return try codes(inGreyscale: frame.pixels, width: frame.size.width, height: frame.size.height)
    }

    /// The frame decoded to one byte of luminance per pixel, row by row.
    public static func greyscale(_ bytes: [UInt8]) throws(FrameError) -> (pixels: [UInt8], size: ImageSize) {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maximumFileBytes else { throw .fileTooLarge(byteCount: bytes.count) }
        let format: ImageFormat
        switch FormatSniffer.sniff(bytes) {
        case .accepted(let sniffed): format = sniffed
        case .refused(let name): throw .notAnImage(format: name)
        case .unknown: throw .notAnImage(format: nil)
        }
        do {
            try Vips.start()
        } catch {
            throw .processingFailed(reason: error.debugDescription)
        }
        let result = bytes.withUnsafeBytes { raw -> Result<(pixels: [UInt8], size: ImageSize), FrameError> in
            // The image borrows `raw`: every image made from it is released before this returns.
            guard let image = VipsImageReference(shim_vips_image_new_from_buffer(raw.baseAddress, raw.count)) else {
                return .failure(.undecodable(format, reason: Vips.lastError()))
            }
            let loader = image.string("vips-loader")
            guard loader == format.loaderName else {
                return .failure(.undecodable(format, reason: "read by \(loader ?? "an unknown loader") instead of \(format.loaderName)"))
            }
            let size = ImageSize(width: image.width, height: image.height)
            guard size.width > 0, size.height > 0 else { return .failure(.undecodable(format, reason: "no pixels")) }
            guard size.width <= maximumPixelSide, size.height <= maximumPixelSide, size.width * size.height <= maximumPixelCount else {
                return .failure(.dimensionsTooLarge(size))
            }
            var converted: UnsafeMutablePointer<VipsImage>?
            guard shim_vips_grey8(image.pointer, &converted) == 0, let grey = VipsImageReference(converted) else {
                return .failure(.undecodable(format, reason: Vips.lastError()))
            }
            // Computes every pixel: a damaged or truncated file fails here (`fail_on=error`).
            var length = 0
            guard let memory = vips_image_write_to_memory(grey.pointer, &length) else {
                return .failure(.undecodable(format, reason: Vips.lastError()))
            }
            defer { g_free(memory) }
            guard length == size.width * size.height else {
                return .failure(.processingFailed(reason: "\(length) bytes of luminance for \(size) pixels"))
            }
            return .success((Array(UnsafeRawBufferPointer(start: memory, count: length)), size))
        }
        return try result.get()
    }

    /// The QR codes' messages in a greyscale frame (`width`×`height` bytes, row by row).
    public static func codes(inGreyscale pixels: [UInt8], width: Int, height: Int) throws(FrameError) -> [String] {
        guard width > 0, height > 0, pixels.count == width * height else {
            throw .processingFailed(reason: "\(pixels.count) bytes for a \(width)×\(height) frame")
        }
        guard let scanner = zbar_image_scanner_create() else { throw .processingFailed(reason: "zbar_image_scanner_create failed") }
        defer { zbar_image_scanner_destroy(scanner) }
        // QR codes only: the other symbologies' decoders would cost time and find misreads in noise.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        guard let image = zbar_image_create() else { throw .processingFailed(reason: "zbar_image_create failed") }
        defer { zbar_image_destroy(image) }
        zbar_image_set_format(image, shim_zbar_y800())
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        return pixels.withUnsafeBytes { raw -> [String] in
            // zbar borrows the pixels (no cleanup handler): it is done with them when the scan returns.
            zbar_image_set_data(image, raw.baseAddress, UInt(raw.count), nil)
            guard zbar_scan_image(scanner, image) > 0 else { return [] }
            var found: [String] = []
            var symbol = zbar_image_first_symbol(image)
            while let current = symbol, found.count < maximumCodes {
                if let data = zbar_symbol_get_data(current) {
                    let length = Int(zbar_symbol_get_data_length(current))
                    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
                    if !found.contains(text) { found.append(text) }
                }
                symbol = zbar_symbol_next(current)
            }
            // Unhooks the pixels before `raw` goes away.
            zbar_image_set_data(image, nil, 0, nil)
            return found
        }
    }
}

// libvips for this module: started once per process, set up for untrusted uploads, and the one
// reader of its error buffer.
//
// Threading: libvips is thread-safe once `vips_init` has run; `Vips.start()` runs it exactly once
// (a Swift global's initialiser runs once, under a lock, on first use), so any thread may call into
// this module. Calls block the calling thread while they decode and encode: call from the HTTP
// engine's threads or a dedicated one, not from Swift's cooperative pool. libvips keeps one error
// buffer for the whole process, so under concurrent failures a reason may carry another call's
// words too; reasons only ever reach `debugDescription`.
//
// Memory: the operation cache is off (it would keep decoded uploads alive after a request) and each
// pipeline runs on one worker thread, so one scaling holds at most a few strips of pixels besides
// its input and output buffers.
//
// Logging: libvips' warnings are dropped (see `dropWarning`); its critical messages, which mean a
// bug on our side, still go to stderr.

internal import CVips

/// The process's libvips.
package enum Vips {
    /// Loaders left usable: every other libvips loader (SVG through librsvg, PDF, TIFF, ImageMagick,
    /// …) is blocked process-wide, so a file that slips past the format sniffing still meets no
    /// decoder beyond these two.
    static let allowedLoaders = ["VipsForeignLoadPngBuffer", "VipsForeignLoadJpegBuffer"]

    /// The outcome of starting libvips, computed on first use.
    private static let startup: Result<Void, PassImageError> = {
        guard shim_vips_init("pass-server") == 0 else {
            return .failure(.processingFailed(reason: "cannot start libvips: \(lastError())"))
        }
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        vips_concurrency_set(1)
        vips_block_untrusted_set(1)
        vips_operation_block_set("VipsForeignLoad", 1)
        for loader in allowedLoaders { vips_operation_block_set(loader, 0) }
        _ = g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, dropWarning, nil)
        return .success(())
    }()

    /// Drops libvips' warnings: they describe a bad upload ("Not enough image data", "CRC error"),
    /// which reaches the caller as an error with the same words, and would otherwise go to stderr
    /// once per damaged tile.
    private static let dropWarning: GLogFunc = { _, _, _, _ in }

    /// Starts libvips if it has not been started; throws if it cannot start.
    package static func start() throws(PassImageError) { try startup.get() }

    /// libvips' error buffer as text, emptied for the next call.
    static func lastError() -> String {
        guard let copy = vips_error_buffer_copy() else { return "no reason given" }
        defer { g_free(copy) }
        let text = String(cString: copy).split(whereSeparator: \.isNewline).joined(separator: "; ")
        return text.isEmpty ? "no reason given" : text
    }
}

/// One reference to a `VipsImage`, released when this goes away.
final class VipsImageReference {
    /// The image; valid while this object lives.
    let pointer: UnsafeMutablePointer<VipsImage>

    /// Takes over the reference a libvips call returned; nil when the call returned none.
    init?(_ pointer: UnsafeMutablePointer<VipsImage>?) {
        guard let pointer else { return nil }
        self.pointer = pointer
    }

    deinit { g_object_unref(pointer) }

    /// Width in pixels, as stored (before any EXIF rotation).
    var width: Int { Int(vips_image_get_width(pointer)) }
    /// Height in pixels, as stored.
    var height: Int { Int(vips_image_get_height(pointer)) }

    /// The size as the image is meant to be seen: width and height swapped when its EXIF
    /// orientation turns it a quarter.
    var uprightSize: ImageSize {
        vips_image_get_orientation_swap(pointer) != 0
            ? ImageSize(width: height, height: width) : ImageSize(width: width, height: height)
    }

    /// A string field of the header (`vips-loader`), if present.
    func string(_ field: String) -> String? {
        guard vips_image_get_typeof(pointer, field) != 0 else { return nil }
        var value: UnsafePointer<CChar>?
        guard vips_image_get_string(pointer, field, &value) == 0, let value else {
            vips_error_clear()
            return nil
        }
        return String(cString: value)
    }

    /// The image as a stripped 8-bit sRGB PNG, computing every pixel; nil on failure (the reason is
    /// in `Vips.lastError()`). With `.palette`, the pixels are computed once into memory and written
    /// both ways, and the smaller file is kept: a palette PNG (exact for an image of at most 256
    /// colours, dithered otherwise) or, where the palette's own bytes make it no smaller (a tiny
    /// icon of many colours), the full-colour one.
    func pngBytes(_ colors: PassImageColors) -> [UInt8]? {
        var converted: UnsafeMutablePointer<VipsImage>?
        guard shim_vips_colourspace_srgb(pointer, &converted) == 0, let srgb = VipsImageReference(converted) else { return nil }
        switch colors {
        case .full:
            return srgb.encoded(shim_vips_pngsave_buffer_stripped)
        case .palette:
            guard let pixels = VipsImageReference(vips_image_copy_memory(srgb.pointer)),
                let palette = pixels.encoded(shim_vips_pngsave_buffer_palette),
                let full = pixels.encoded(shim_vips_pngsave_buffer_stripped)
            else { return nil }
            return palette.count < full.count ? palette : full
        }
    }

    /// The bytes one of the PNG savers writes, copied out of libvips' buffer; nil on failure.
    private func encoded(
        _ save: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>) -> Int32
    ) -> [UInt8]? {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard save(pointer, &buffer, &length) == 0, let buffer else { return nil }
        defer { g_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}

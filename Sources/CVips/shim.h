#ifndef CVIPS_SHIM_H
#define CVIPS_SHIM_H
#include <vips/vips.h>

// libvips passes optional arguments as NULL-terminated variadic lists, which Swift cannot call, and
// starts through a macro. Each wrapper below fixes the options one caller needs; one line of why each.

/// `VIPS_INIT` is a macro (an ABI check in front of vips_init).
static inline int shim_vips_init(const char *argv0) { return VIPS_INIT(argv0); }

/// `vips_image_new_from_buffer` is variadic: this opens for the header only (sequential, lazy) and
/// makes any later decode fail on truncation or corruption rather than pad the image with grey.
/// The image borrows `buf`: keep it alive until the image is unreferenced.
static inline VipsImage *shim_vips_image_new_from_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "",
        "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

/// `vips_thumbnail_buffer` is variadic: this decodes (shrinking on load where the format allows),
/// rotates upright from EXIF, and scales to `width`×`height`: exactly that size when `crop` (filling
/// the box and trimming the centre), else stretched to it (callers pass the aspect-true size).
/// The result borrows `buf` until it is computed.
static inline int shim_vips_thumbnail_buffer(void *buf, size_t len, VipsImage **out, int width, int height, int crop) {
    return vips_thumbnail_buffer(buf, len, out, width,
        "height", height,
        "size", crop ? VIPS_SIZE_BOTH : VIPS_SIZE_FORCE,
        "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
        "option_string", "fail_on=error", NULL);
}

/// `vips_colourspace` is variadic: this converts to 8-bit sRGB (keeping any alpha).
static inline int shim_vips_colourspace_srgb(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

/// `vips_pngsave_buffer` is variadic: this writes 8-bit PNG without metadata (EXIF, XMP, ICC, text).
/// Free `*buf` with g_free.
static inline int shim_vips_pngsave_buffer_stripped(VipsImage *in, void **buf, size_t *len) {
    return vips_pngsave_buffer(in, buf, len, "strip", TRUE, "bitdepth", 8, "compression", 9, NULL);
}

/// `vips_pngsave_buffer` is variadic: this writes an 8-bit palette PNG (at most 256 colours, chosen
/// by libimagequant, Floyd-Steinberg dithered, alpha kept through the palette) without metadata.
/// Free `*buf` with g_free.
static inline int shim_vips_pngsave_buffer_palette(VipsImage *in, void **buf, size_t *len) {
    return vips_pngsave_buffer(in, buf, len, "strip", TRUE, "bitdepth", 8, "compression", 9,
        "palette", TRUE, "Q", 100, "dither", 1.0, NULL);
}

/// `vips_colourspace`, `vips_extract_band` and `vips_cast` are variadic: this makes one 8-bit band of
/// luminance (a camera frame for the barcode reader), dropping any alpha; 16-bit input is shifted down.
static inline int shim_vips_grey8(VipsImage *in, VipsImage **out) {
    VipsImage *grey = NULL, *band = NULL;
    if (vips_colourspace(in, &grey, VIPS_INTERPRETATION_B_W, NULL)) return -1;
    int failed = vips_extract_band(grey, &band, 0, NULL);
    g_object_unref(grey);
    if (failed) return -1;
    failed = vips_cast(band, out, VIPS_FORMAT_UCHAR, "shift", TRUE, NULL);
    g_object_unref(band);
    return failed;
}

// Encoders with their defaults (metadata kept), for tests that need images in other formats.

/// `vips_pngsave_buffer` is variadic.
static inline int shim_vips_pngsave_buffer(VipsImage *in, void **buf, size_t *len) { return vips_pngsave_buffer(in, buf, len, NULL); }
/// `vips_jpegsave_buffer` is variadic.
static inline int shim_vips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len) { return vips_jpegsave_buffer(in, buf, len, NULL); }
/// `vips_gifsave_buffer` is variadic.
static inline int shim_vips_gifsave_buffer(VipsImage *in, void **buf, size_t *len) { return vips_gifsave_buffer(in, buf, len, NULL); }
/// `vips_webpsave_buffer` is variadic.
static inline int shim_vips_webpsave_buffer(VipsImage *in, void **buf, size_t *len) { return vips_webpsave_buffer(in, buf, len, NULL); }
#endif

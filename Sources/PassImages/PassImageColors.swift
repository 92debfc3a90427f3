/// How the scaled files of an image keep their colours.
///
/// A pass carries every image three times and every phone downloads the whole pass on each
/// update, so an image's bytes are paid once per phone per change: a photograph strip written in
/// full colour is about five times the bytes of the same strip in a 256-colour palette, which on
/// screen differs from it by dithering no eye picks out at Wallet's sizes.
public enum PassImageColors: String, Sendable, CaseIterable {
    /// At most 256 colours (libimagequant's choice, dithered): exact for an image that has no more
    /// (most logos and icons); kept in full colour where that file is smaller. The default.
    case palette
    /// 8-bit full colour, every pixel as scaled.
    case full
}

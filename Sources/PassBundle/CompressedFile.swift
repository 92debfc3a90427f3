// A template file deflated once, when the template loads, by libzip itself: a throwaway archive
// is written and its entries are read back raw. A template's images and localizations never
// change between passes, so every bundle copies these bytes as they are (TemplateArchive).

/// One file's compressed bytes with what a zip entry records about them.
struct CompressedFile: Sendable {
    let path: String
    let data: [UInt8]
    let crc: UInt32
    let size: UInt64
    let method: UInt16
}

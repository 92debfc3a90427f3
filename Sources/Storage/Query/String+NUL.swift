import Foundation

extension String {
    /// Whether the text holds a NUL byte, which neither database accepts in text. One `memchr`
    /// over the UTF-8 (a batch's JSON parameter is checked byte by byte otherwise, twice).
    var containsNUL: Bool {
        utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, 0, bytes.count) != nil
        } ?? utf8.contains(0)
    }
}

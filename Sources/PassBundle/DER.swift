/// Just enough DER reading to find fields inside a structure OpenSSL encoded for us.
///
/// This never decodes values: it walks tag-length-value headers so `SignatureTemplate` can locate
/// the byte ranges of a CMS SignerInfo. Indefinite lengths, long-form tags and lengths over four
/// bytes do not occur in DER from OpenSSL and are reported as malformed (nil).
enum DER {
    /// One element: its tag byte, where its header starts, and where its contents lie.
    struct Element: Equatable {
        let tag: UInt8
        let start: Int
        let contents: Range<Int>

        /// The whole element, header included.
        var range: Range<Int> { start..<contents.upperBound }
    }

    /// The element starting at `offset`, or nil when the header is malformed or overruns `limit`.
    static func element(in bytes: [UInt8], at offset: Int, limit: Int) -> Element? {
        guard offset >= 0, offset + 2 <= limit, limit <= bytes.count else { return nil }
        let tag = bytes[offset]
        guard tag & 0x1F != 0x1F else { return nil }
        let first = Int(bytes[offset + 1])
        var cursor = offset + 2
        var length = 0
        if first < 0x80 {
            length = first
        } else {
            let count = first & 0x7F
            guard (1...4).contains(count), cursor + count <= limit else { return nil }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[cursor])
                cursor += 1
            }
        }
        guard cursor + length <= limit else { return nil }
        return Element(tag: tag, start: offset, contents: cursor..<(cursor + length))
    }

    /// The direct children of a constructed element, or nil when they do not fill it exactly.
    static func children(of parent: Element, in bytes: [UInt8]) -> [Element]? {
        var result: [Element] = []
        var cursor = parent.contents.lowerBound
        while cursor < parent.contents.upperBound {
            guard let child = element(in: bytes, at: cursor, limit: parent.contents.upperBound) else { return nil }
            result.append(child)
            cursor = child.contents.upperBound
        }
        return result
    }
}

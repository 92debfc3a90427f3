/// Percent-decoding of URL parts (RFC 3986 §2.1), done by hand because routing must see the raw
/// segments: `%2F` inside a segment is data, not a separator.
enum PercentDecoding {
    /// Decodes `%xx` escapes (and `+` as space when `plusAsSpace`). Returns nil for a malformed escape
    /// or when the result is not valid UTF-8, so callers can answer 400 instead of guessing.
    static func decode<S: StringProtocol>(_ text: S, plusAsSpace: Bool = false) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(37) || (plusAsSpace && utf8.contains(43)) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == 37 {  // %
                let first = utf8.index(after: index)
                guard first != utf8.endIndex else { return nil }
                let second = utf8.index(after: first)
                guard second != utf8.endIndex, let high = hexValue(utf8[first]), let low = hexValue(utf8[second]) else {
                    return nil
                }
                bytes.append(high << 4 | low)
                index = utf8.index(after: second)
            } else {
                bytes.append(plusAsSpace && byte == 43 ? 32 : byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Splits a raw query string into decoded `(name, value)` pairs; nil if any part is malformed.
    static func queryItems<S: StringProtocol>(_ query: S) -> [(name: String, value: String)]? {
        var items: [(name: String, value: String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(pieces[0], plusAsSpace: true) else { return nil }
            let rawValue = pieces.count > 1 ? pieces[1] : ""
            guard let value = decode(rawValue, plusAsSpace: true) else { return nil }
            items.append((name: name, value: value))
        }
        return items
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}

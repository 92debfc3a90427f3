/// JSON string literals written as UTF-8 bytes: pass.json, template output, the JSON parameters
/// of batched statements and stored ticket fields all write strings through this one function.
package enum JSONString {
    /// Whether a byte of UTF-8 must be escaped in a JSON string.
    @inlinable
    package static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Appends `string` as a JSON string literal: `"` and `\` escaped with a backslash, `\n`, `\r`
    /// and `\t` by name, every other control character as `\u00XX` (lowercase); every other byte
    /// of the UTF-8 (multi-byte sequences included) copied as it is.
    @inlinable
    package static func append(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them in one go, scanning and copying the string's
        // own UTF-8 storage where it has one (every native string) rather than going byte by byte.
        let copied: Bool
        if let done = string.utf8.withContiguousStorageIfAvailable({ utf8 -> Bool in
            guard !utf8.contains(where: needsEscape) else { return false }
            out.append(contentsOf: utf8)
            return true
        }) {
            copied = done
        } else if !string.utf8.contains(where: needsEscape) {
            out.append(contentsOf: string.utf8)
            copied = true
        } else {
            copied = false
        }
        if copied {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                Hex.append(byte, to: &out)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

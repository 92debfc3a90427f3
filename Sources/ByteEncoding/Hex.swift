/// Lowercase hexadecimal text of bytes: manifest hashes, token hashes, secrets written to files,
/// JSON `\u00XX` escapes.
package enum Hex {
    @usableFromInline static let digits = Array("0123456789abcdef".utf8)

    /// Two lowercase hex digits per byte. Inlinable, so a caller's module specializes it to its
    /// byte sequence (every push's token hash goes through it).
    @inlinable
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes { append(byte, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the two lowercase hex digits of `byte` to `out`.
    @inlinable
    package static func append(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
}

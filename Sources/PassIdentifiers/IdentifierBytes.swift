/// The one byte validator behind every identifier: which bytes an identifier may hold and how many.
/// Modules that check a serial, token or topic before it reaches a path, header or query use these
/// rather than a copy of their own.
public enum IdentifierBytes {
    /// True if `value` is non-empty, at most `maxLength` UTF-8 bytes, and every byte is `allowed`.
    ///
    /// Inlinable, as are the byte classes: every request and every push checks identifiers, and
    /// only a caller's module can specialize the check to its string type and predicate (the
    /// generic version walked the bytes through witness tables, a fifth of the push dispatcher's
    /// time).
    @inlinable
    public static func isValid(_ value: some StringProtocol, maxLength: Int, allowed: (UInt8) -> Bool) -> Bool {
        let bytes = value.utf8
        return !bytes.isEmpty && bytes.count <= maxLength && bytes.allSatisfy(allowed)
    }

    /// `0-9`, `A-Z`, `a-z`.
    @inlinable
    public static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// The base64url alphabet: letters, digits, `-` and `_`.
    @inlinable
    public static func isBase64URL(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == 0x2D || byte == 0x5F
    }

    /// A hex digit in either case.
    @inlinable
    public static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }

    /// Printable ASCII without the space.
    @inlinable
    public static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }
}

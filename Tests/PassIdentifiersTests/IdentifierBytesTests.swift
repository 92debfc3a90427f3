import PassIdentifiers
import Testing

@Suite("IdentifierBytes: the one byte validator")
struct IdentifierBytesTests {
    @Test("lengths: empty and over the bound are refused, the bound itself is accepted")
    func lengths() {
        let any: (UInt8) -> Bool = { _ in true }
        #expect(!IdentifierBytes.isValid("", maxLength: 10, allowed: any))
        #expect(IdentifierBytes.isValid("a", maxLength: 1, allowed: any))
        #expect(IdentifierBytes.isValid(String(repeating: "a", count: 10), maxLength: 10, allowed: any))
        #expect(!IdentifierBytes.isValid(String(repeating: "a", count: 11), maxLength: 10, allowed: any))
        // The bound counts UTF-8 bytes, not characters: "é" is two bytes.
        #expect(!IdentifierBytes.isValid("é", maxLength: 1, allowed: any))
        #expect(IdentifierBytes.isValid(Substring("abc"), maxLength: 3, allowed: any))
    }

    @Test("one refused byte anywhere refuses the whole value")
    func oneBadByte() {
        #expect(IdentifierBytes.isValid("abc", maxLength: 10, allowed: IdentifierBytes.isAlphanumeric))
        for bad in ["ab c", " abc", "abc/", "a\u{0}b", "ab\nc", "abü"] {
            #expect(!IdentifierBytes.isValid(bad, maxLength: 10, allowed: IdentifierBytes.isAlphanumeric), "\(bad.debugDescription)")
        }
    }

    @Test("byte classes, checked over every byte value")
    func classes() {
        let digits = Set("0123456789".utf8)
        let letters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        let hex = digits.union("abcdefABCDEF".utf8)
        for byte in UInt8.min...UInt8.max {
            let alphanumeric = digits.contains(byte) || letters.contains(byte)
            #expect(IdentifierBytes.isAlphanumeric(byte) == alphanumeric, "\(byte)")
            #expect(IdentifierBytes.isBase64URL(byte) == (alphanumeric || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")), "\(byte)")
            #expect(IdentifierBytes.isHexDigit(byte) == hex.contains(byte), "\(byte)")
            #expect(IdentifierBytes.isVisibleASCII(byte) == (byte >= 0x21 && byte <= 0x7E), "\(byte)")
        }
    }
}

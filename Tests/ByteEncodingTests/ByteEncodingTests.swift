import ByteEncoding
import Foundation
import Testing

@Suite("Hex: lowercase hex text of bytes")
struct HexTests {
    @Test("two lowercase digits per byte, leading zeros kept")
    func encode() {
        #expect(Hex.encode([]) == "")
        #expect(Hex.encode([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
        #expect(Hex.encode((0...255).map { UInt8($0) }) == (0...255).map { String(format: "%02x", $0) }.joined())
    }

    @Test("append adds to what is there")
    func append() {
        var out = Array("x".utf8)
        Hex.append(0x9B, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "x9b")
    }
}

@Suite("JSONString: JSON string literals as UTF-8 bytes")
struct JSONStringTests {
    private func literal(_ string: String) -> String {
        var out: [UInt8] = []
        JSONString.append(string, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("plain text, non-ASCII included, is copied between quotes")
    func plain() {
        #expect(literal("") == #""""#)
        #expect(literal("Ada Lovelace") == #""Ada Lovelace""#)
        #expect(literal("Zoë 🎟 チケット") == "\"Zoë 🎟 チケット\"")
    }

    @Test("quotes, backslashes and control characters are escaped; the escapes are exact")
    func escapes() {
        #expect(literal(#"say "hi" \ bye"#) == #""say \"hi\" \\ bye""#)
        #expect(literal("a\nb\rc\td") == #""a\nb\rc\td""#)
        #expect(literal("\u{0}\u{1F}\u{8}\u{C}") == #""\u0000\u001f\u0008\u000c""#)
        // DEL and the C1 controls are valid JSON as they are.
        #expect(literal("\u{7F}\u{85}") == "\"\u{7F}\u{85}\"")
    }

    @Test("every byte below 0x80 and sample scalars round-trip through a JSON parser")
    func roundTrip() throws {
        var samples = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["\u{2028}\u{2029}", "é", "\u{1F600}", "\"\\\u{1}x"]
        var checked = 0
        for sample in samples {
            let document = "[" + literal(sample) + "]"
            let parsed = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String]
            #expect(parsed == [sample], "\(sample.debugDescription) written as \(document)")
            checked += 1
        }
        #expect(checked == 0x80 + 4)
    }
}

@Suite("Base64URL: unpadded base64url of bytes, and back")
struct Base64URLTests {
    @Test("encoding equals Foundation's base64 with the URL alphabet and no padding, for every length; decoding inverts it")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected, "\(length) bytes")
            #expect(Base64URL.decode(expected) == bytes, "\(length) bytes")
        }
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test("padding is accepted; other alphabets, impossible lengths and stray bits are not")
    func refusals() {
        #expect(Base64URL.decode("YQ==") == Array("a".utf8))
        #expect(Base64URL.decode("YWI=") == Array("ab".utf8))
        #expect(Base64URL.decode("+/+/") == nil)
        #expect(Base64URL.decode("YWJjZ") == nil)
        #expect(Base64URL.decode("YR") == nil)
        #expect(Base64URL.decode("Y Q") == nil)
        #expect(Base64URL.decode("") == [])
    }
}

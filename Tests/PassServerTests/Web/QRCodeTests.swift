import Foundation
import PassServerTesting
import Testing

@testable import PassServer

/// QR codes from libqrencode, drawn as SVG, rendered by librsvg and read back by a real decoder (zbar).
@Suite("Web: QR codes", .offCooperativePool, .timeLimit(.minutes(2)))
struct QRCodeTests {
    /// What `zbarimg` reads from `svg` once `rsvg-convert` has drawn it `pixels` wide.
    private func decode(_ svg: String, pixels: Int = 600, sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
        let directory = try TestCertificates.temporaryDirectory(prefix: "qr")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(svg.utf8).write(to: URL(fileURLWithPath: directory + "/code.svg"))
        let convert = try run("rsvg-convert", ["--width", "\(pixels)", "--background-color", "white", "--output", directory + "/code.png", directory + "/code.svg"])
        try #require(convert.status == 0, "rsvg-convert: \(convert.error)", sourceLocation: sourceLocation)
        // -Sbinary: the bytes as they are in the symbol, not re-encoded from a guessed character set.
        let scan = try run("zbarimg", ["--quiet", "--raw", "-Sbinary", directory + "/code.png"])
        guard scan.status == 0 else { return nil }
        return scan.output
    }

    @Test(
        "the SVG decodes to exactly the message",
        arguments: [
            "https://passes.example.test/download/abc123",
            "PS1:pass.org.example.ticket:8f3c2a:Ada Lovelace",
            "チケット № 42 — Zoë Ångström ✓ 🎟",
            String(repeating: "A long message, with punctuation; and digits 0123456789. ", count: 30),
        ]
    )
    func roundTrip(message: String) throws {
        let code = try QRCode(message)
        let decoded = try decode(code.svg(label: "Ticket code").markup)
        #expect(decoded == message, "version \(code.version), \(message.utf8.count) bytes")
    }

    @Test("a blank SVG decodes to nothing, so the round trip can fail")
    func decoderCanFail() throws {
        let code = try QRCode("hello")
        let svg = code.svg(label: "x").markup
        #expect(try decode(svg) == "hello")
        let blank = svg.replacingOccurrences(of: ##"fill="#000""##, with: ##"fill="#fff""##)
        #expect(try decode(blank) == nil)
    }

    @Test("the symbol: smallest version, quiet zone of four, dark finder corners, one path")
    func shape() throws {
        let code = try QRCode("hello")
        #expect(code.version == 1)
        #expect(code.size == 21)
        #expect(code.modules.count == 21 * 21)
        // The top-left finder pattern: a 7×7 dark ring around a light ring around a dark 3×3.
        #expect(code.isDark(x: 0, y: 0) && code.isDark(x: 6, y: 6) && !code.isDark(x: 1, y: 1) && code.isDark(x: 3, y: 3))
        #expect(!code.isDark(x: -1, y: 0) && !code.isDark(x: 21, y: 0))
        let svg = code.svg(label: #"Ada's "ticket" <b>"#).markup
        #expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>"))
        #expect(svg.contains(#"viewBox="0 0 29 29""#))
        #expect(svg.contains(#"role="img""#))
        #expect(svg.contains(#"aria-label="Ada&#39;s &quot;ticket&quot; &lt;b&gt;""#))
        #expect(svg.components(separatedBy: "<path").count == 2)
        #expect(svg.contains(#"d="M4 4h7v1h-7z"#), "the first row starts with the finder's seven dark modules, after the quiet zone")
        #expect(try QRCode(String(repeating: "x", count: 200)).version > 1)
    }

    @Test("a message too long for any QR code, or an empty one, is an error")
    func tooLong() throws {
        #expect(throws: QRCode.EncodingError.self) { try QRCode(String(repeating: "é", count: 2_000)) }
        #expect(throws: QRCode.EncodingError.self) { try QRCode("") }
        #expect(try QRCode(String(repeating: "é", count: 1_000)).version > 30, "2,000 bytes still fit")
    }
}

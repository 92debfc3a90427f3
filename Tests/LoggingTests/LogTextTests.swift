import PassServerTesting
import Testing

@testable import Logging

/// Escaping in the logger itself: whatever a caller passes, one event is one line.
@Suite("Log text escaping", .offCooperativePool)
struct LogTextTests {
    /// Scalars that would end a line, move the cursor or reorder text on a terminal.
    static let hostile: [(name: String, text: String)] = [
        ("LF", "a\nb"), ("CR", "a\rb"), ("CRLF as one Character", "a\r\nb"), ("ESC", "a\u{1B}[31mb"),
        ("NUL", "a\u{0}b"), ("DEL", "a\u{7F}b"), ("NEL (C1)", "a\u{85}b"), ("CSI (C1)", "a\u{9B}b"),
        ("LINE SEPARATOR", "a\u{2028}b"), ("PARAGRAPH SEPARATOR", "a\u{2029}b"), ("RIGHT-TO-LEFT OVERRIDE", "a\u{202E}b"),
        ("TAB", "a\tb"), ("VT", "a\u{0B}b"), ("FF", "a\u{0C}b"),
    ]

    @Test(arguments: hostile.map(\.text))
    func everyPartOfALineIsEscaped(text: String) throws {
        let sink = MemorySink()
        let logger = Logger(label: "test", level: .trace, sink: sink)
        logger.warning("message \(text)", ["value": text, "key\(text)": "x"])
        let line = try #require(sink.lines.first)
        #expect(sink.lines.count == 1)
        #expect(!line.unicodeScalars.contains(where: LogText.mustEscape), "raw control in \(line.debugDescription)")
        #expect(line.contains("value=\"a"), "a value with an escape is quoted: \(line)")
    }

    @Test func escapesAreReadableAndUnambiguous() {
        #expect(LogText.escape("a\r\nb") == #"a\r\nb"#)
        #expect(LogText.escape("a\u{1B}b") == #"a\u001Bb"#)
        #expect(LogText.escape("a\u{85}\u{2028}b") == #"a\u0085\u2028b"#)
        #expect(LogText.escape(#"back\slash"#) == #"back\\slash"#, "a literal backslash-n cannot pass for an escaped newline")
        #expect(LogText.value("plain") == "plain")
        #expect(LogText.value("") == "\"\"")
        #expect(LogText.value("two words") == "\"two words\"")
        #expect(LogText.value("a=\"b\"") == #""a=\"b\"""#)
        #expect(LogText.value("日本語") == "日本語", "printable non-ASCII text stays as it is")
        #expect(LogText.name("request.id") == "request.id")
        #expect(LogText.name("bad key\n") == "bad_key_")
    }

    @Test func longValuesAreCutOnAScalarBoundaryAndMarked() {
        let (short, cutShort) = LogText.truncated("abc", maxBytes: 3)
        #expect(short == "abc" && !cutShort)
        // "é" is two bytes: a cut at 3 bytes keeps one "é" whole and never half of the next.
        let (cut, wasCut) = LogText.truncated("ééé", maxBytes: 3)
        #expect(wasCut)
        #expect(cut == "é" + LogText.truncationMarker)
        // A combining sequence may be split between its scalars, but never inside a scalar.
        let (combining, _) = LogText.truncated("e\u{301}\u{301}\u{301}", maxBytes: 4)
        #expect(combining.unicodeScalars.map(\.value).prefix(2) == [0x65, 0x301])
        let huge = String(repeating: "x", count: LogText.maxValueBytes * 2)
        #expect(LogText.value(huge).utf8.count <= LogText.maxValueBytes + LogText.truncationMarker.utf8.count + 2)
    }
}

/// Makes text safe for a one-line log format, whoever wrote it.
///
/// Everything a logger writes passes through here, so a caller that logs an attendee's string (a
/// phone's log message, a path, a header) cannot forget to escape it. The work is done on Unicode
/// scalars, not `Character`s: `"\r\n"` is one `Character` that no per-character check for `"\n"`
/// catches.
public enum LogText {
    /// Longest metadata value written, in UTF-8 bytes; longer values are cut and marked.
    public static let maxValueBytes = 8_192
    /// Appended to text that was cut short.
    public static let truncationMarker = "…[truncated]"

    /// Whether a scalar may not appear raw in a log line: every C0 control (CR, LF, TAB, ESC …),
    /// DEL, every C1 control (NEL U+0085 …), the Unicode line and paragraph separators, and the
    /// bidirectional overrides that can make a terminal show text in another order than written.
    public static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `text` with every scalar that `mustEscape` names written as `\n`, `\r`, `\t` or `\uXXXX`,
    /// and backslashes doubled, so the result is one line and can be read back unambiguously.
    /// With `quotes`, `"` becomes `\"` as well.
    public static func escape(_ text: String, quotes: Bool = false) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F || $0 == 0x5C || (quotes && $0 == 0x22) }) else {
            return text
        }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped.append(contentsOf: #"\\"#.unicodeScalars)
            case "\"" where quotes: escaped.append(contentsOf: #"\""#.unicodeScalars)
            case "\n": escaped.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": escaped.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": escaped.append(contentsOf: #"\t"#.unicodeScalars)
            case _ where mustEscape(scalar):
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// A metadata value as written after `key=`: cut to `maxValueBytes`, escaped, and in double
    /// quotes when it is empty or holds a space, `"`, `=`, `\` or anything escaped.
    public static func value(_ raw: String) -> String {
        let (text, _) = truncated(raw, maxBytes: maxValueBytes)
        let needsQuotes = text.isEmpty
            || text.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || mustEscape($0) }
        return needsQuotes ? "\"" + escape(text, quotes: true) + "\"" : text
    }

    /// A metadata key or label: letters, digits and `._-` kept, anything else becomes `_`.
    public static func name(_ raw: String) -> String {
        guard raw.utf8.contains(where: { !isNameByte($0) }) else { return raw }
        return String(decoding: raw.utf8.map { isNameByte($0) ? $0 : UInt8(ascii: "_") }, as: UTF8.self)
    }

    /// At most `maxBytes` UTF-8 bytes of `text`, cut on a Unicode scalar boundary, followed by
    /// `truncationMarker` when something was cut; `wasCut` tells whether it was.
    public static func truncated(_ text: String, maxBytes: Int) -> (text: String, wasCut: Bool) {
        guard text.utf8.count > maxBytes else { return (text, false) }
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in text.unicodeScalars {
            let size = UTF8.width(scalar)
            guard bytes + size <= maxBytes else { break }
            kept.append(scalar)
            bytes += size
        }
        return (String(kept) + truncationMarker, true)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}

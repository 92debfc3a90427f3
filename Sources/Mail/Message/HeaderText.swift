import Foundation

/// Texts made safe for a message header: one line, no control characters, and anything but plain
/// ASCII encoded as RFC 2047 encoded-words (UTF-8, base64), so nothing a text holds (an attendee's
/// name with CR/LF, `Bcc:`, `=?`…) can end a header or start another.
public enum HeaderText {
    /// `text` on one line: every control character (C0, DEL, C1) and line or paragraph separator
    /// becomes a space, runs of spaces become one, and the ends are trimmed; at most `limit`
    /// characters are kept.
    public static func singleLine(_ text: String, limit: Int = 500) -> String {
        var result = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let isBreaking = value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
            if isBreaking || scalar == " " {
                if !lastWasSpace { result.append(" ") }
                lastWasSpace = true
            } else {
                result.append(scalar)
                lastWasSpace = false
            }
        }
        var line = String(result)
        while line.hasSuffix(" ") { line.removeLast() }
        return line.count > limit ? String(line.prefix(limit)) : line
    }

    /// Whether `text` can stand in a header as it is: printable ASCII and spaces only, and no
    /// `=?` that a reader could take for the start of an encoded-word.
    static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && !text.contains("=?")
    }

    /// `text` (one line) as a header value: as it is when plain, otherwise as encoded-words of at
    /// most 75 characters each, folded onto continuation lines.
    public static func encoded(_ text: String) -> String {
        let line = singleLine(text, limit: 2_000)
        if isPlain(line) && line.utf8.count <= 900 { return line }
        return encodedWords(line)
    }

    /// RFC 2047 `=?UTF-8?B?…?=` words, each whole Unicode scalars and at most 75 characters
    /// (45 bytes of UTF-8 → 60 base64 characters + 12), joined by CRLF and a space.
    static func encodedWords(_ text: String) -> String {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > 45 {
                words.append(word(chunk))
                chunk.removeAll()
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }
}

import Foundation

/// A reply of the SMTP server: its three-digit code and its text (every line of a multi-line
/// reply, joined by spaces), e.g. `550 5.1.1 <x@example.com>: Recipient address rejected`.
public struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var text: String

    public init(code: Int, text: String) {
        self.code = code
        self.text = text
    }

    /// The reply as the server wrote it (code and text), on one line, at most 500 characters.
    public var description: String {
        let line = text.isEmpty ? "\(code)" : "\(code) \(text)"
        return String(line.prefix(500))
    }

    /// 2xx or 3xx.
    public var isPositive: Bool { (200..<400).contains(code) }
    /// 4xx: try again later.
    public var isTransient: Bool { (400..<500).contains(code) }
    /// 5xx: this will not work as sent.
    public var isPermanent: Bool { (500..<600).contains(code) }

    /// Parses one reply line (`250-SIZE 1000`, `550 5.1.1 No`); nil for anything else. `isLast`
    /// is false for the continued lines of a multi-line reply (a `-` after the code).
    static func parseLine(_ line: String) -> (code: Int, text: String, isLast: Bool)? {
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, bytes[0..<3].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let code = Int(String(decoding: bytes[0..<3], as: UTF8.self))
        else { return nil }
        let isLast = bytes.count == 3 || bytes[3] != UInt8(ascii: "-")
        let text = bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : ""
        return (code, text.trimmingCharacters(in: .whitespacesAndNewlines), isLast)
    }
}

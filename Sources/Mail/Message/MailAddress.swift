import Foundation

/// An email address fit for an SMTP envelope and a header, with an optional display name.
///
/// The address is checked strictly, since it goes into the envelope (`<address>`) and headers as
/// it is: `local@domain`, ASCII only, no spaces, no quoting, none of `<>()[]\,;:"`, a domain of
/// letters, digits, hyphens and dots with at least one dot. The display name may be anything:
/// it is put on one line and encoded when it is not plain (`HeaderText`).
public struct MailAddress: Sendable, Equatable, CustomStringConvertible {
    public let address: String
    public let displayName: String?

    public init(_ address: String, displayName: String? = nil) throws(MailError) {
        guard Self.isUsable(address) else {
            throw MailError(.invalidAddress, "'\(HeaderText.singleLine(address, limit: 254))' is not a plain ASCII address (local@domain)")
        }
        self.address = address
        let name = displayName.map { HeaderText.singleLine($0, limit: 200) }
        self.displayName = name?.isEmpty == false ? name : nil
    }

    /// Reads `address` or `Name <address>` (a setting such as `MAIL_FROM`).
    public static func parse(_ text: String) throws(MailError) -> MailAddress {
        let trimmed = HeaderText.singleLine(text)
        guard trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") else { return try MailAddress(trimmed) }
        var name = String(trimmed[..<open]).trimmingSpaces
        if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") { name = String(name.dropFirst().dropLast()) }
        let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        return try MailAddress(address, displayName: name.isEmpty ? nil : name)
    }

    /// The domain part (for `Message-ID`).
    public var domain: Substring {
        address[address.index(after: address.lastIndex(of: "@") ?? address.startIndex)...]
    }

    /// The header form: `address`, `Name <address>`, `"Name, Jr." <address>` or
    /// `=?UTF-8?B?…?= <address>` (for a name that is not plain ASCII or holds `=?`).
    public var headerValue: String {
        guard let name = displayName else { return address }
        // `=` and `?` are atom text, so a name such as `=?UTF-8?B?…?=` would be a valid atom that
        // every reader decodes as an encoded-word: such a name is not plain, and is encoded itself.
        if HeaderText.isPlain(name) {
            if name.utf8.allSatisfy(Self.isAtomText) { return "\(name) <\(address)>" }
            let quoted = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(quoted)\" <\(address)>"
        }
        return HeaderText.encodedWords(name) + " <\(address)>"
    }

    public var description: String { headerValue }

    /// Letters, digits, spaces and the specials RFC 5322 allows in an atom.
    private static func isAtomText(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array(" !#$%&'*+-/=?^_`{|}~".utf8).contains(byte)
        }
    }

    static func isUsable(_ address: String) -> Bool {
        let bytes = Array(address.utf8)
        guard (3...254).contains(bytes.count), let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0, at <= 64 else { return false }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        let forbidden = Array("<>()[]\\,;:\"@".utf8)
        guard local.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !forbidden.contains($0) }),
            local.first != UInt8(ascii: "."), local.last != UInt8(ascii: ".")
        else { return false }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                && label.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "-")
                }
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}

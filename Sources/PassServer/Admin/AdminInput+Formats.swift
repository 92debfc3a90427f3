import Foundation

extension AdminInput {
    /// An ISO 8601 date-time with a zone (`2027-03-01T19:00:00+09:00`), exactly as `ISODate.parse`
    /// reads it: no surrounding spaces, a year 1970–9999, an offset within ±18:00.
    mutating func date(_ field: String, nullable: Bool = false) -> Presence<Date> {
        switch string(field, maxLength: ISODate.maxLength, nullable: nullable) {
        case .absent: return .absent
        case .null: return .null
        case .value(let text):
            guard let date = ISODate.parse(text) else {
                problem(field, "must be an ISO 8601 date-time with a zone offset within ±18:00 and a year 1970–9999, e.g. 2027-03-01T19:00:00+09:00")
                return .absent
            }
            return .value(date)
        }
    }

    /// One of the IANA time zone identifiers this server knows (`AdminInput.timeZones`).
    mutating func timeZone(_ field: String) -> Presence<String> {
        let value = string(field, maxLength: 64)
        if case .value(let identifier) = value, !Self.timeZones.contains(identifier) {
            problem(field, "'\(identifier)' is not an IANA time zone identifier (e.g. Europe/Berlin)")
            return .absent
        }
        return value
    }

    /// The time zone identifiers accepted for events: the canonical IANA names Foundation knows,
    /// and `UTC` (the default). `openapi.yaml` lists the same set.
    static let timeZones: Set<String> = Set(TimeZone.knownTimeZoneIdentifiers).union(["UTC"])

    /// `local@domain.tld`: one `@`, no spaces or control characters, and a dot inside the domain.
    mutating func email(_ field: String, nullable: Bool = false) -> Presence<String> {
        let value = string(field, maxLength: 254, nullable: nullable)
        guard case .value(let email) = value else { return value }
        let scalars = Array(email.unicodeScalars)
        let excluded: (Unicode.Scalar) -> Bool = { $0 == "@" || AdminText.isControl($0) || AdminText.isSpace($0) }
        guard let at = scalars.firstIndex(of: "@"), at > 0, !scalars[..<at].contains(where: excluded) else {
            problem(field, "is not an email address")
            return .absent
        }
        let domain = scalars[(at + 1)...]
        guard domain.count >= 3, !domain.contains(where: excluded), domain.dropFirst().dropLast().contains(".") else {
            problem(field, "is not an email address")
            return .absent
        }
        return value
    }
}

extension AdminInput {
    /// A JSON `true` or `false`.
    mutating func boolean(_ field: String) -> Presence<Bool> {
        switch value(field) {
        case nil: return .absent
        case .bool(let flag)?: return .value(flag)
        default:
            problem(field, "must be true or false")
            return .absent
        }
    }

    /// A language code for email texts: two or three lowercase letters, optionally a hyphen and a
    /// region or script of 2–8 letters or digits (`en`, `ja`, `pt-BR`, `zh-Hant`), as
    /// `openapi.yaml`'s `Language` pattern states.
    mutating func language(_ field: String, nullable: Bool = false) -> Presence<String> {
        let value = string(field, maxLength: 12, nullable: nullable)
        guard case .value(let code) = value else { return value }
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        let isLetter = { (byte: UInt8) in (byte >= 0x61 && byte <= 0x7A) }
        let isAlphanumeric = { (byte: UInt8) in isLetter(byte) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) }
        let primaryOK = parts.first.map { (2...3).contains($0.utf8.count) && $0.utf8.allSatisfy(isLetter) } ?? false
        let subtagOK = parts.count == 1 || (parts.count == 2 && (2...8).contains(parts[1].utf8.count) && parts[1].utf8.allSatisfy(isAlphanumeric))
        guard primaryOK && subtagOK else {
            problem(field, "must be a language code such as en, ja or pt-BR")
            return .absent
        }
        return value
    }
}

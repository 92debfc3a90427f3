import Foundation

/// The rules of the organizers' texts, codes and names, as `openapi.yaml` states them: lengths
/// count Unicode scalars as given (JSON Schema's `maxLength`), never grapheme clusters. Each
/// returns the value to store or what is wrong with it, in the words every transport shows.
enum FieldRules {
    /// What is wrong with a value.
    struct Problem: Error, Equatable {
        var message: String
    }

    /// `text` when it has at most `maxLength` Unicode scalars.
    static func length(_ text: String, maxLength: Int) -> Result<String, Problem> {
        text.unicodeScalars.count <= maxLength ? .success(text) : .failure(Problem(message: "must be at most \(maxLength) characters (Unicode scalars)"))
    }

    /// A text: at most `maxLength` Unicode scalars as given, without control characters
    /// (U+0000–U+001F, U+007F–U+009F), not blank; stored without surrounding spaces.
    static func text(_ raw: String, maxLength: Int = 200) -> Result<String, Problem> {
        length(raw, maxLength: maxLength).flatMap { raw in
            if raw.unicodeScalars.contains(where: AdminText.isControl) { return .failure(Problem(message: "must not contain control characters")) }
            let trimmed = AdminText.trimmed(raw)
            return trimmed.isEmpty ? .failure(Problem(message: "must not be empty")) : .success(trimmed)
        }
    }

    /// The longest announcement, in Unicode scalars (a back field shows it whole; the lock screen
    /// shows its start).
    static let maxAnnouncement = 500

    /// An announcement's text: plain text of at most `maxAnnouncement` Unicode scalars as given,
    /// line breaks allowed (CR LF and CR become LF) and no other control character, not blank;
    /// stored without surrounding spaces and line breaks.
    static func announcement(_ raw: String) -> Result<String, Problem> {
        length(raw, maxLength: maxAnnouncement).flatMap { raw in
            var scalars = String.UnicodeScalarView()
            var previous: Unicode.Scalar?
            for scalar in raw.unicodeScalars {
                if scalar == "\n" && previous == "\r" { previous = scalar; continue }
                scalars.append(scalar == "\r" ? "\n" : scalar)
                previous = scalar
            }
            if scalars.contains(where: { $0 != "\n" && AdminText.isControl($0) }) {
                return .failure(Problem(message: "must not contain control characters other than line breaks"))
            }
            let blank: (Unicode.Scalar) -> Bool = { $0 == "\n" || AdminText.isSpace($0) }
            guard let first = scalars.firstIndex(where: { !blank($0) }), let last = scalars.lastIndex(where: { !blank($0) }) else {
                return .failure(Problem(message: "must not be empty"))
            }
            return .success(String(scalars[first...last]))
        }
    }

    /// `local@domain.tld`: one `@`, no spaces or control characters, and a dot inside the domain;
    /// at most 254 Unicode scalars. Stored as given.
    static func email(_ email: String) -> Result<String, Problem> {
        length(email, maxLength: 254).flatMap { email in
            let invalid = Result<String, Problem>.failure(Problem(message: "is not an email address"))
            let scalars = Array(email.unicodeScalars)
            let excluded: (Unicode.Scalar) -> Bool = { $0 == "@" || AdminText.isControl($0) || AdminText.isSpace($0) }
            guard let at = scalars.firstIndex(of: "@"), at > 0, !scalars[..<at].contains(where: excluded) else { return invalid }
            let domain = scalars[(at + 1)...]
            guard domain.count >= 3, !domain.contains(where: excluded), domain.dropFirst().dropLast().contains(".") else { return invalid }
            return .success(email)
        }
    }

    /// A language code for email texts: two or three lowercase letters, optionally a hyphen and a
    /// region or script of 2–8 letters or digits (`en`, `ja`, `pt-BR`, `zh-Hant`), as
    /// `openapi.yaml`'s `Language` pattern states.
    static func language(_ code: String) -> Result<String, Problem> {
        length(code, maxLength: 12).flatMap { code in
            let parts = code.split(separator: "-", omittingEmptySubsequences: false)
            let isLetter = { (byte: UInt8) in (byte >= 0x61 && byte <= 0x7A) }
            let isAlphanumeric = { (byte: UInt8) in isLetter(byte) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) }
            let primaryOK = parts.first.map { (2...3).contains($0.utf8.count) && $0.utf8.allSatisfy(isLetter) } ?? false
            let subtagOK = parts.count == 1
                || (parts.count == 2 && (2...8).contains(parts[1].utf8.count) && parts[1].utf8.allSatisfy(isAlphanumeric))
            return primaryOK && subtagOK ? .success(code) : .failure(Problem(message: "must be a language code such as en, ja or pt-BR"))
        }
    }

    /// An uploaded template's name: 1–64 lowercase ASCII letters, digits and hyphens, starting with a
    /// letter or a digit (`spring-gala`), as `openapi.yaml`'s `UploadedTemplateName` pattern states.
    static func templateName(_ name: String) -> Result<String, Problem> {
        let bytes = Array(name.utf8)
        let allowed = { (byte: UInt8) in (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D }
        guard let first = bytes.first, first != 0x2D, bytes.count <= 64, bytes.allSatisfy(allowed) else {
            return .failure(Problem(message: "must be 1 to 64 lowercase letters, digits and hyphens, starting with a letter or a digit"))
        }
        return .success(name)
    }

    /// One of the IANA time zone identifiers this server knows (`timeZones`).
    static func timeZone(_ identifier: String) -> Result<String, Problem> {
        length(identifier, maxLength: 64).flatMap { identifier in
            timeZones.contains(identifier)
                ? .success(identifier) : .failure(Problem(message: "'\(identifier)' is not an IANA time zone identifier (e.g. Europe/Berlin)"))
        }
    }

    /// The time zone identifiers accepted for events: the canonical IANA names Foundation knows,
    /// and `UTC` (the default). `openapi.yaml` lists the same set.
    static let timeZones: Set<String> = Set(TimeZone.knownTimeZoneIdentifiers).union(["UTC"])
}

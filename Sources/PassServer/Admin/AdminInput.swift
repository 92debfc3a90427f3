import Foundation
import HTTPServer
import PassBundle

/// A JSON object from an admin request, read field by field. Every problem is collected, so one
/// 400 names all invalid fields; unknown fields are refused (a typo must not be silently ignored).
struct AdminInput {
    /// A field that was present: a value, or an explicit JSON `null` (which clears optional fields).
    enum Presence<T> {
        case absent
        case null
        case value(T)
    }

    /// One invalid field and what is wrong with it.
    struct Issue: Equatable, CustomStringConvertible {
        var field: String
        var message: String
        var description: String { "\(field): \(message)" }
    }

    private let object: [String: Any]
    private(set) var issues: [Issue] = []

    /// Every problem as `field: message`.
    var problems: [String] { issues.map(\.description) }

    init(_ request: Request, allowed: Set<String>) throws(HTTPError) {
        if let contentType = request.headers["Content-Type"]?.lowercased(), !contentType.hasPrefix("application/json") {
            throw HTTPError.badRequest("Content-Type must be application/json.", code: "unsupported_content_type")
        }
        let body = request.body.isEmpty ? Array("{}".utf8) : request.body
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(body), options: []), let object = parsed as? [String: Any] else {
            throw HTTPError.badRequest("The body must be a JSON object.", code: "malformed_json")
        }
        self.init(object: object, allowed: allowed)
    }

    /// Reads an object already parsed (one element of a batch); `prefix` goes before every field
    /// name in problems (`extra.` for the members of `extra`).
    init(object: [String: Any], allowed: Set<String>, prefix: String = "") {
        self.object = object
        self.prefix = prefix
        // Sorted only when there is something to report (a batch reads 10,000 objects).
        if object.keys.contains(where: { !allowed.contains($0) }) {
            for key in object.keys.sorted() where !allowed.contains(key) {
                problem(key, "unknown field")
            }
        }
    }

    private var prefix = ""

    /// Throws a 400 naming every invalid field, if any.
    func validate() throws(HTTPError) {
        guard issues.isEmpty else {
            throw HTTPError.badRequest(problems.joined(separator: "; "), code: "invalid_fields")
        }
    }

    mutating func problem(_ field: String, _ message: String) {
        issues.append(Issue(field: prefix + field, message: message))
    }

    /// The problems another reader found (a nested object's), kept with these.
    mutating func absorb(_ other: AdminInput) {
        issues += other.issues
    }

    /// The raw value of a field, if present.
    func value(_ field: String) -> Any? { object[field] }

    /// Whether the field is present as JSON `null`.
    func isNull(_ field: String) -> Bool { object[field] is NSNull }

    /// A string field of 1…`maxLength` characters after trimming, without control characters.
    mutating func text(_ field: String, maxLength: Int = 200) -> Presence<String> {
        guard let raw = object[field] else { return .absent }
        if raw is NSNull { return .null }
        guard let string = raw as? String else {
            problem(field, "must be a string")
            return .absent
        }
        // Trimming and counting characters are costly and a bulk import reads every field of
        // 10,000 rows: skip them when they cannot change anything (nothing to trim at either end;
        // no more UTF-8 bytes than the limit, so no more characters either).
        let value = Self.mayNeedTrimming(string) ? string.trimmingCharacters(in: .whitespacesAndNewlines) : string
        if value.isEmpty {
            problem(field, "must not be empty")
        } else if value.utf8.count > maxLength && value.count > maxLength {
            problem(field, "must be at most \(maxLength) characters")
        } else if value.unicodeScalars.contains(where: { $0.value < 0x20 || ($0.value >= 0x7F && $0.properties.generalCategory == .control) }) {
            problem(field, "must not contain control characters")
        } else {
            return .value(value)
        }
        return .absent
    }

    /// Whether `text` starts or ends with a scalar that trimming might remove (any non-ASCII one
    /// counts, to be safe).
    private static func mayNeedTrimming(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return false }
        func isPlain(_ scalar: Unicode.Scalar) -> Bool { scalar.value > 0x20 && scalar.value < 0x7F }
        return !isPlain(first) || !isPlain(last)
    }

    /// A required string field.
    mutating func requiredText(_ field: String, maxLength: Int = 200) -> String? {
        switch text(field, maxLength: maxLength) {
        case .value(let value): return value
        case .null: problem(field, "must not be null")
        case .absent where object[field] == nil: problem(field, "is required")
        case .absent: break
        }
        return nil
    }

    /// An ISO 8601 date-time with a zone offset (`2027-03-01T19:00:00+09:00`).
    mutating func date(_ field: String) -> Presence<Date> {
        switch text(field, maxLength: 64) {
        case .absent: return .absent
        case .null: return .null
        case .value(let text):
            guard let date = ISODate.parse(text) else {
                problem(field, "must be an ISO 8601 date-time with a time zone, e.g. 2027-03-01T19:00:00+09:00")
                return .absent
            }
            return .value(date)
        }
    }

    /// A required ISO 8601 date-time: one problem if it is missing or null, none more if it is
    /// present but invalid (`date` has named that one).
    mutating func requiredDate(_ field: String) -> Date? {
        switch date(field) {
        case .value(let date): return date
        case .null: problem(field, "must not be null")
        case .absent where object[field] == nil: problem(field, "is required")
        case .absent: break
        }
        return nil
    }

    /// An IANA time zone identifier.
    mutating func timeZone(_ field: String) -> Presence<String> {
        let value = text(field, maxLength: 64)
        if case .value(let identifier) = value, TimeZone(identifier: identifier) == nil {
            problem(field, "'\(identifier)' is not an IANA time zone (e.g. Europe/Berlin)")
            return .absent
        }
        return value
    }
}

/// ISO 8601 date-times with a zone, as the admin API reads and writes them.
enum ISODate {
    static func parse(_ text: String) -> Date? {
        // A zone is required: a bare local time would be ambiguous.
        guard text.hasSuffix("Z") || text.range(of: #"[+-]\d{2}:?\d{2}$"#, options: .regularExpression) != nil else { return nil }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    /// `date` written with the offset of `timeZone` (UTC when unknown).
    static func format(_ date: Date, timeZone: String = "UTC") -> String {
        // Not ISO8601DateFormatter: creating one costs more than the rest of a ticket's JSON.
        ISO8601Zoned.format(date, in: TimeZoneCache.zone(timeZone) ?? utc)
    }

    private static let utc = TimeZone(secondsFromGMT: 0) ?? TimeZone.current
}

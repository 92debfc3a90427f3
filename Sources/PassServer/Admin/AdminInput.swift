import Foundation
import HTTPServer
import PassBundle

/// A JSON object from an admin request, read field by field. Every problem is collected, so one
/// 400 names all invalid fields; unknown fields are refused (a typo must not be silently ignored).
///
/// The rules match `openapi.yaml` exactly: lengths count Unicode scalars (as JSON Schema's
/// `maxLength` does), never grapheme clusters, and a JSON `null` is accepted only where the
/// document allows it.
struct AdminInput {
    /// A field that was present: a value, or an explicit JSON `null` (which clears optional fields).
    enum Presence<T> {
        case absent
        case null
        case value(T)

        /// The value; nil when the field is absent or `null`.
        var value: T? {
            if case .value(let value) = self { value } else { nil }
        }

        /// The field as a change of an optional property: nil when absent (left as it is),
        /// `.some(nil)` for `null` (cleared), the value otherwise.
        var change: T?? {
            switch self {
            case .absent: nil
            case .null: .some(nil)
            case .value(let value): .some(value)
            }
        }
    }

    /// One invalid field and what is wrong with it.
    struct Issue: Equatable, CustomStringConvertible {
        var field: String
        var message: String
        var description: String { "\(field): \(message)" }
    }

    private let object: [String: JSONValue]
    /// Goes before every field name in problems (`extra.` for the members of `extra`).
    private let prefix: String
    private(set) var issues: [Issue] = []

    /// Every problem as `field: message`.
    var problems: [String] { issues.map(\.description) }

    /// Reads the body. `bodyRequired`: an empty body is refused (the route documents a required
    /// body); otherwise it counts as `{}`.
    init(_ request: Request, allowed: Set<String>, bodyRequired: Bool = true) throws(HTTPError) {
        if request.body.isEmpty && bodyRequired, request.headers["Content-Type"]?.lowercased().hasPrefix("application/json") ?? true {
            throw HTTPError.badRequest("A JSON object body is required.", code: "malformed_json")
        }
        guard case .object(let object) = try request.decode(JSONValue.self, ifEmpty: Array("{}".utf8)) else {
            throw HTTPError.badRequest("The body must be a JSON object.", code: "malformed_json")
        }
        self.init(object: object, allowed: allowed)
    }

    /// Reads an object already parsed (one element of a batch, or a nested object whose problems
    /// are named `prefix` + field).
    init(object: [String: JSONValue], allowed: Set<String>, prefix: String = "") {
        self.object = object
        self.prefix = prefix
        // Sorted only when there is something to report (a batch reads 10,000 objects).
        if object.keys.contains(where: { !allowed.contains($0) }) {
            for key in object.keys.sorted() where !allowed.contains(key) {
                problem(key, "unknown field")
            }
        }
    }

    /// The problems found so far, as the organizer's issues (a draft's `unreadable`).
    var unreadable: [OrganizerError.Issue] { issues.map { OrganizerError.Issue($0.field, $0.message) } }

    /// Throws a 400 naming every invalid field, if any.
    func validate() throws(HTTPError) {
        guard problems.isEmpty else {
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

    /// The value of a field as sent, if present.
    func value(_ field: String) -> JSONValue? { object[field] }

    /// Whether the field is present (with any value, `null` included).
    func isPresent(_ field: String) -> Bool { object[field] != nil }

    /// A string field exactly as sent: at most `maxLength` Unicode scalars. A JSON `null` is
    /// `.null` when `nullable`, otherwise a problem.
    mutating func string(_ field: String, maxLength: Int, nullable: Bool = false) -> Presence<String> {
        let string: String
        switch object[field] {
        case nil:
            return .absent
        case .null?:
            if nullable { return .null }
            problem(field, "must not be null")
            return .absent
        case .string(let value)?:
            string = value
        default:
            problem(field, "must be a string")
            return .absent
        }
        guard string.unicodeScalars.count <= maxLength else {
            problem(field, "must be at most \(maxLength) characters (Unicode scalars)")
            return .absent
        }
        return .value(string)
    }

    /// A string field as sent, of any length (the organizer checks it). A JSON `null` is `.null`
    /// when `nullable`, otherwise a problem.
    mutating func string(_ field: String, nullable: Bool = false) -> Presence<String> {
        string(field, maxLength: .max, nullable: nullable)
    }

    /// A field checked by one of the organizers' rules (`FieldRules`).
    mutating func checked(_ field: String, nullable: Bool = false, _ rule: (String) -> Result<String, FieldRules.Problem>) -> Presence<String> {
        switch string(field, nullable: nullable) {
        case .absent: return .absent
        case .null: return .null
        case .value(let raw):
            switch rule(raw) {
            case .success(let value): return .value(value)
            case .failure(let failure):
                problem(field, failure.message)
                return .absent
            }
        }
    }

    /// A text field (`FieldRules.text`): at most `maxLength` Unicode scalars as sent, without
    /// control characters, not blank; stored without surrounding spaces.
    mutating func text(_ field: String, maxLength: Int = 200, nullable: Bool = false) -> Presence<String> {
        checked(field, nullable: nullable) { FieldRules.text($0, maxLength: maxLength) }
    }
}

/// The character classes of admin texts, shared with the patterns in openapi.yaml.
enum AdminText {
    /// Unicode's control characters (general category Cc): `\x00-\x1F` and `\x7F-\x9F`.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The separators trimmed from texts (general categories Zs, Zl and Zp).
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// `text` without leading and trailing separators, cut at Unicode scalars (a combining mark
    /// after a space stays).
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(scalars[first...last])
    }
}

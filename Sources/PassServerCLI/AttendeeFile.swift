import Foundation
import PassBundle
import PassServer

/// The attendee file of `pass build`: one JSON object describing one ticket.
///
/// Checked as a whole: every problem is reported at once, each with the key it is about, so a
/// file is fixed in one round instead of one error per run.
enum AttendeeFile {
    /// Every problem found in a file, each `key: problem` (`(file)` for the file as a whole).
    struct Problems: Error, Equatable {
        var list: [String]
    }

    /// What the file may leave out and the configuration supplies.
    struct Defaults {
        var webServiceURL: String
        /// ORGANIZATION_NAME, if set: a file without `organizationName` needs it.
        var organizationName: String?
        /// Makes an authentication token when the file has none.
        var authenticationToken: () -> String
    }

    static let requiredKeys = ["serialNumber", "eventName", "venue", "startsAt", "attendeeName"]
    static let optionalKeys = ["authenticationToken", "endsAt", "timeZone", "seat", "voided", "organizationName", "description"]

    /// The keys, for `--help`.
    static let summary = """
        {"serialNumber", "eventName", "venue", "startsAt" (ISO 8601 with zone), "attendeeName",
        optional "endsAt", "timeZone", "seat", "voided", "authenticationToken", "organizationName", "description"}
        """

    /// The ticket `bytes` describe; throws every problem together.
    static func ticket(from bytes: [UInt8], defaults: Defaults) throws(Problems) -> TicketData {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw Problems(list: ["(file): \(Self.syntaxProblem(in: bytes))"])
        }
        guard case .object(let object) = document else {
            throw Problems(list: ["(file): must be one JSON object {\"serialNumber\": …}, not \(Self.kind(document))"])
        }
        var reader = Reader(object: object)
        let serialNumber = reader.requiredString("serialNumber")
        let eventName = reader.requiredString("eventName")
        let venue = reader.requiredString("venue")
        let startsAt = reader.date("startsAt", required: true)
        let attendeeName = reader.requiredString("attendeeName")
        let endsAt = reader.date("endsAt", required: false)
        let timeZone = reader.string("timeZone")
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            reader.problems.append("timeZone: unknown time zone \(Self.quoted(timeZone)) (use an IANA name such as Europe/Berlin)")
        }
        if let startsAt, let endsAt, endsAt < startsAt {
            reader.problems.append("endsAt: must not be before startsAt")
        }
        let optional = (
            token: reader.string("authenticationToken"), seat: reader.string("seat"), cancelled: reader.bool("voided"),
            organization: reader.string("organizationName"), description: reader.string("description")
        )
        let organizationName = optional.organization ?? defaults.organizationName
        if organizationName == nil {
            reader.problems.append("organizationName: required here or as ORGANIZATION_NAME (--organization-name): Wallet shows it on the lock screen")
        }
        for key in object.keys.sorted() where !(requiredKeys + optionalKeys).contains(key) {
            let suggestion = (requiredKeys + optionalKeys).first { $0.lowercased() == key.lowercased() }
            reader.problems.append("\(key): unknown key" + (suggestion.map { " (did you mean \($0)?)" } ?? ""))
        }
        guard reader.problems.isEmpty, let serialNumber, let eventName, let venue, let startsAt, let attendeeName, let organizationName else {
            throw Problems(list: reader.problems)
        }
        return TicketData(
            serialNumber: serialNumber, authenticationToken: optional.token ?? defaults.authenticationToken(),
            webServiceURL: defaults.webServiceURL, organizationName: organizationName,
            description: optional.description ?? "Ticket for \(eventName)", eventName: eventName, venue: venue,
            startsAt: startsAt, endsAt: endsAt, timeZone: timeZone ?? "UTC", attendeeName: attendeeName,
            seat: optional.seat, cancelled: optional.cancelled ?? false
        )
    }

    /// Reads typed values out of the object, collecting a problem for each one that is off.
    private struct Reader {
        let object: [String: JSONValue]
        var problems: [String] = []

        mutating func requiredString(_ key: String) -> String? {
            guard object[key] != nil else {
                problems.append("\(key): required")
                return nil
            }
            guard let value = string(key) else { return nil }
            guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                problems.append("\(key): must not be empty")
                return nil
            }
            return value
        }

        mutating func string(_ key: String) -> String? {
            value(key, expected: "a string") { if case .string(let text) = $0 { text } else { nil } }
        }

        mutating func bool(_ key: String) -> Bool? {
            value(key, expected: "true or false") { if case .bool(let flag) = $0 { flag } else { nil } }
        }

        /// The value at `key` when present and of the right kind; absent and `null` are nil.
        private mutating func value<T>(_ key: String, expected: String, _ extract: (JSONValue) -> T?) -> T? {
            guard let found = object[key], found != .null else { return nil }
            guard let typed = extract(found) else {
                problems.append("\(key): must be \(expected), not \(AttendeeFile.kind(found))")
                return nil
            }
            return typed
        }

        mutating func date(_ key: String, required: Bool) -> Date? {
            let text = required ? requiredString(key) : string(key)
            guard let text else { return nil }
            guard let date = ISODate.parse(text) else {
                problems.append("\(key): must be an ISO 8601 date-time with a zone offset such as 2027-05-01T19:30:00+09:00, not \(AttendeeFile.quoted(text))")
                return nil
            }
            return date
        }
    }

    /// What a JSON value is, in words.
    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A value as shown in a message: quoted, and cut when long.
    private static func quoted(_ text: String) -> String {
        "\"\(text.count > 60 ? text.prefix(60) + "…" : text)\""
    }

    /// Where the JSON text goes wrong, as line and column (Foundation's parser says which byte).
    private static func syntaxProblem(in bytes: [UInt8]) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            return "not valid JSON"
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
            guard let match = detail.firstMatch(of: /around character (\d+)/), let offset = Int(match.1), offset <= bytes.count else {
                return "not valid JSON"
            }
            let before = bytes[..<offset]
            let line = before.count { $0 == UInt8(ascii: "\n") } + 1
            let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            return "not valid JSON: unexpected text at line \(line), column \(column)"
        }
    }
}

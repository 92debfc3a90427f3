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

    /// One of the IANA time zone identifiers this server knows (`FieldRules.timeZones`).
    mutating func timeZone(_ field: String) -> Presence<String> {
        checked(field, FieldRules.timeZone)
    }

    /// The time zone identifiers accepted for events (`FieldRules.timeZones`).
    static var timeZones: Set<String> { FieldRules.timeZones }

    /// `local@domain.tld` (`FieldRules.email`).
    mutating func email(_ field: String, nullable: Bool = false) -> Presence<String> {
        checked(field, nullable: nullable, FieldRules.email)
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

    /// A language code for email texts (`FieldRules.language`): `en`, `ja`, `pt-BR`, `zh-Hant`.
    mutating func language(_ field: String, nullable: Bool = false) -> Presence<String> {
        checked(field, nullable: nullable, FieldRules.language)
    }
}

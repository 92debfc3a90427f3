package import Foundation
import PassBundle
import SystemSupport

/// ISO 8601 date-times with a zone, as the admin API reads and writes them: `ISO8601Zoned` with
/// the seconds required (openapi.yaml's `DateTime` pattern) and zones named as events name them.
package enum ISODate {
    /// The longest text accepted (a fraction of many digits is the only way to get long).
    static let maxLength = ISO8601Zoned.maxLength

    /// The instant `text` names: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, a real calendar day,
    /// a year 1970–9999, an offset within ±18:00 (see `ISO8601Zoned.parse`).
    package static func parse(_ text: String) -> Date? {
        ISO8601Zoned.parse(text)
    }

    /// `date` written with the offset of `timeZone` (UTC when unknown). RFC 3339 offsets are
    /// whole minutes; the local mean time some zones had before the 1970s has seconds in its
    /// offset (Africa/Monrovia: -00:44:30), so the offset is cut to the minute and the local time
    /// written with it, which still names the same instant.
    package static func format(_ date: Date, timeZone: String = "UTC") -> String {
        ISO8601Zoned.format(date, in: TimeZoneCache.zone(timeZone) ?? .gmt)
    }
}

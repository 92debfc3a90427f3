package import Foundation
import PassBundle

/// ISO 8601 date-times with a zone, as the admin API reads and writes them.
///
/// Reading is strict and matches the `DateTime` pattern of openapi.yaml character for character:
/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, a real calendar day, a year 1970–9999 and an offset
/// within ±18:00. Anything a pass cannot hold is refused here rather than stored (Wallet's dates
/// have four-digit years; ISO8601DateFormatter would accept `2027-02-30`, `24:00` or `+99:59`).
package enum ISODate {
    /// The longest text accepted (a fraction of many digits is the only way to get long).
    static let maxLength = 64

    package static func parse(_ text: String) -> Date? {
        var reader = DigitReader(Array(text.utf8))
        guard text.utf8.count <= maxLength,
            let year = reader.number(4), (1970...9999).contains(year), reader.skip("-"),
            let month = reader.number(2), (1...12).contains(month), reader.skip("-"),
            let day = reader.number(2), (1...daysIn(month: month, year: year)).contains(day), reader.skip("T"),
            let hour = reader.number(2), hour <= 23, reader.skip(":"),
            let minute = reader.number(2), minute <= 59, reader.skip(":"),
            let second = reader.number(2), second <= 59
        else { return nil }
        var fraction = 0.0
        if reader.skip(".") {
            guard let digits = reader.digits(), !digits.isEmpty else { return nil }
            fraction = Double("0." + digits) ?? 0
        }
        var offset = 0
        if !reader.skip("Z") {
            let sign: Int
            if reader.skip("+") { sign = 1 } else if reader.skip("-") { sign = -1 } else { return nil }
            guard let hours = reader.number(2), reader.skip(":"), let minutes = reader.number(2), minutes <= 59,
                hours * 60 + minutes <= 18 * 60
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard reader.atEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// `date` written with the offset of `timeZone` (UTC when unknown). RFC 3339 offsets are
    /// whole minutes; the local mean time some zones had before the 1970s has seconds in its
    /// offset (Africa/Monrovia: -00:44:30), so the offset is cut to the minute and the local time
    /// written with it, which still names the same instant.
    ///
    /// Written by `ISO8601Zoned`, not ISO8601DateFormatter: creating a formatter costs more than
    /// the rest of a ticket's JSON, and a list or an import writes two dates per ticket.
    package static func format(_ date: Date, timeZone: String = "UTC") -> String {
        ISO8601Zoned.format(date, in: TimeZoneCache.zone(timeZone) ?? .gmt)
    }

    static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// Reads ASCII digits and literals from the front of a byte string.
private struct DigitReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    /// Exactly `count` digits as a number.
    mutating func number(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<(index + count)] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += count
        return value
    }

    /// Every digit from here on, as text.
    mutating func digits() -> String? {
        let start = index
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func skip(_ literal: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(literal.value) else { return false }
        index += 1
        return true
    }
}

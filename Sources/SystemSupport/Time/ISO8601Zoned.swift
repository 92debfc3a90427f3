public import Foundation

/// ISO 8601 date-times with a zone, `2026-05-01T19:30:00+09:00`: the one reader and writer of
/// pass.json's dates (PassBundle) and the admin API's (openapi.yaml's `DateTime`).
///
/// Hand-written (days-from-civil and back) because DateFormatter and ISO8601DateFormatter are slow
/// to create, pass rendering runs per request and the admin API writes two dates per ticket; and
/// because ISO8601DateFormatter accepts `2027-02-30`, `24:00` or `+99:59`.
///
/// Reading is strict: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, a real calendar day, a year
/// 1970–9999, hours 00–23, minutes and seconds 00–59 and an offset within ±18:00, at most 64
/// characters. The only choice a caller makes is whether the seconds may be left out
/// (`YYYY-MM-DDTHH:MM…`, which Wallet reads in a pass.json); the admin API requires them.
public enum ISO8601Zoned {
    /// The longest text accepted (a fraction of many digits is the only way to get long).
    public static let maxLength = 64

    /// The instant `text` names, or nil when it is not such a date-time.
    public static func parse(_ text: String, secondsOptional: Bool = false) -> Date? {
        var reader = DigitReader(Array(text.utf8))
        guard text.utf8.count <= maxLength,
            let year = reader.number(4), (1970...9999).contains(year), reader.skip("-"),
            let month = reader.number(2), (1...12).contains(month), reader.skip("-"),
            let day = reader.number(2), (1...daysIn(month: month, year: year)).contains(day), reader.skip("T"),
            let hour = reader.number(2), hour <= 23, reader.skip(":"),
            let minute = reader.number(2), minute <= 59
        else { return nil }
        var second = 0
        var fraction = 0.0
        if reader.skip(":") {
            guard let seconds = reader.number(2), seconds <= 59 else { return nil }
            second = seconds
            if reader.skip(".") {
                guard let digits = reader.digits(), !digits.isEmpty else { return nil }
                fraction = Double("0." + digits) ?? 0
            }
        } else if !secondsOptional {
            return nil
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

    /// `date` written with the offset `zone` has at that instant (so daylight saving time is
    /// honoured), `Z` for a zero offset.
    public static func format(_ date: Date, in zone: TimeZone) -> String {
        // Whole minutes: an offset with seconds (local mean time, Africa/Monrovia until 1972) has
        // no ISO 8601 form, and the local time must be written with the offset that is shown.
        let offset = zone.secondsFromGMT(for: date) / 60 * 60
        let local = Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(offset)
        let days = floorDivide(local, 86400)
        let secondsOfDay = local - days * 86400
        let (year, month, day) = civil(fromDays: days)
        // Written as bytes: pass rendering writes several dates per pass.
        var text: [UInt8] = []
        text.reserveCapacity(25)
        appendDigits(year, 4, to: &text)
        text.append(UInt8(ascii: "-"))
        appendDigits(month, 2, to: &text)
        text.append(UInt8(ascii: "-"))
        appendDigits(day, 2, to: &text)
        text.append(UInt8(ascii: "T"))
        appendDigits(secondsOfDay / 3600, 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(secondsOfDay % 3600 / 60, 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(secondsOfDay % 60, 2, to: &text)
        if offset == 0 {
            text.append(UInt8(ascii: "Z"))
        } else {
            let magnitude = Int64(abs(offset))
            text.append(UInt8(ascii: offset < 0 ? "-" : "+"))
            appendDigits(magnitude / 3600, 2, to: &text)
            text.append(UInt8(ascii: ":"))
            appendDigits(magnitude % 3600 / 60, 2, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
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

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    /// Howard Hinnant's civil_from_days.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `value` in decimal, zero-padded to at least `width` digits (a sign first if negative).
    private static func appendDigits(_ value: Int64, _ width: Int, to text: inout [UInt8]) {
        if value < 0 { text.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var power: UInt64 = 1
        var count = 1
        while power <= magnitude / 10 {
            power *= 10
            count += 1
        }
        if count < width { text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - count)) }
        var rest = magnitude
        while power > 0 {
            text.append(UInt8(ascii: "0") + UInt8(rest / power))
            rest %= power
            power /= 10
        }
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

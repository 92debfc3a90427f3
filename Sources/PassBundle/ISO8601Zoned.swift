public import Foundation

/// Formats dates as ISO 8601 with the numeric offset of a time zone: `2026-05-01T19:30:00+09:00`.
///
/// Hand-written (civil-from-days) because DateFormatter is slow to create and pass rendering runs
/// per request (and the admin API writes two dates per ticket); the offset comes from `TimeZone`,
/// so daylight saving time is honoured.
public enum ISO8601Zoned {
    public static func format(_ date: Date, in zone: TimeZone) -> String {
        // Whole minutes: an offset with seconds (local mean time, Africa/Monrovia until 1972) has
        // no ISO 8601 form, and the local time must be written with the offset that is shown.
        let offset = zone.secondsFromGMT(for: date) / 60 * 60
        let local = Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(offset)
        let days = floorDivide(local, 86400)
        let secondsOfDay = local - days * 86400
        let (year, month, day) = civil(fromDays: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(secondsOfDay / 3600, 2) + ":" + pad(secondsOfDay % 3600 / 60, 2) + ":" + pad(secondsOfDay % 60, 2)
        if offset == 0 { return text + "Z" }
        let sign = offset < 0 ? "-" : "+"
        let magnitude = Int64(abs(offset))
        return text + sign + pad(magnitude / 3600, 2) + ":" + pad(magnitude % 3600 / 60, 2)
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

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

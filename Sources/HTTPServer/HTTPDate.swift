import Foundation

/// HTTP-dates (RFC 9110 §5.6.7): formats IMF-fixdate, parses all three historic forms. The one
/// reader and writer of `Last-Modified` and `If-Modified-Since`: the server's and its clients'.
public enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for whole seconds since 1970.
    public static func format(epochSeconds: Int64) -> String {
        var seconds = time_t(epochSeconds)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Built by hand: `String(format:)` goes through CFString's formatter, which showed up in
        // profiles of GET /v1/passes (every 200 and 304 carries Last-Modified).
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }
        return weekdays[Int(parts.tm_wday)] + ", " + padded(parts.tm_mday, 2) + " " + months[Int(parts.tm_mon)] + " "
            + padded(parts.tm_year + 1900, 4) + " " + padded(parts.tm_hour, 2) + ":" + padded(parts.tm_min, 2) + ":"
            + padded(parts.tm_sec, 2) + " GMT"
    }

    /// Seconds since 1970 of an IMF-fixdate, RFC 850 or asctime date; `nil` when it is none of them
    /// (a server reading `If-Modified-Since` must take all three).
    public static func parse(_ text: String) -> Int64? {
        parse(text, obsoleteForms: true)
    }

    /// `parse(_:)`; `obsoleteForms: false` takes IMF-fixdate only: the form every sender must
    /// generate, so a client reading a server's `Last-Modified` expects nothing else (RFC 9110 §5.6.7).
    public static func parse(_ text: String, obsoleteForms: Bool) -> Int64? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT → [Sun, 06, Nov, 1994, 08:49:37, GMT]
        if tokens.count == 6, tokens[5] == "GMT", weekdays.contains(tokens[0]) {
            return epoch(day: tokens[1], month: tokens[2], year: tokens[3], time: tokens[4])
        }
        guard obsoleteForms else { return nil }
        // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
        if tokens.count == 4, tokens[3] == "GMT" {
            let date = tokens[1].split(separator: "-").map(String.init)
            guard date.count == 3, let shortYear = Int(date[2]), date[2].count == 2 else { return nil }
            // RFC 9110: a two-digit year more than 50 years ahead means the previous century.
            let year = shortYear + (shortYear >= 70 ? 1900 : 2000)
            return epoch(day: date[0], month: date[1], year: String(year), time: tokens[2])
        }
        // asctime: Sun Nov  6 08:49:37 1994
        if tokens.count == 5, weekdays.contains(tokens[0]) {
            return epoch(day: tokens[2], month: tokens[1], year: tokens[4], time: tokens[3])
        }
        return nil
    }

    private static func epoch(day: String, month: String, year: String, time: String) -> Int64? {
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard let dayValue = Int(day), (1...31).contains(dayValue), day.count <= 2,
            let monthIndex = months.firstIndex(of: month), let yearValue = Int(year), year.count == 4,
            clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(yearValue - 1900)
        parts.tm_mon = Int32(monthIndex)
        parts.tm_mday = Int32(dayValue)
        parts.tm_hour = Int32(clock[0])
        parts.tm_min = Int32(clock[1])
        parts.tm_sec = Int32(clock[2])
        let value = timegm(&parts)
        // timegm normalises 31 Feb into March: refuse dates that did not survive unchanged.
        guard value != -1 || (yearValue == 1969), parts.tm_mday == Int32(dayValue), parts.tm_mon == Int32(monthIndex) else {
            return nil
        }
        return Int64(value)
    }
}

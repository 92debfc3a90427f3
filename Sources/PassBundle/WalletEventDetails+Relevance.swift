public import Foundation

/// When and where a pass comes up on the lock screen (`relevantDates`, `locations`).
///
/// Wallet takes `relevantDates` as intervals of at most 24 hours each, so an event is cut into
/// one interval per calendar day of the venue's time zone:
/// - The first interval opens `relevanceLeadTime` before the start (getting there, doors).
/// - An event whose whole span, lead included, fits in 24 hours gets that one interval, even when
///   it runs past midnight (a concert until 01:00). Without an end (or with an end not after the
///   start) the event is taken to last `assumedDuration`.
/// - A longer event gets one interval per local calendar day: the first from its opening to the
///   next local midnight, then midnight to midnight, the last from midnight to the end. A day of
///   25 hours (the night clocks go back) is cut to its first 24; a first interval whose lead
///   reaches into the day before is shortened at its start.
/// - At most `maxRelevantIntervals` intervals (a year of days): later days get none.
extension WalletEventDetails {
    /// How long before the start the pass becomes relevant.
    public static let relevanceLeadTime: TimeInterval = 3 * 3600
    /// How long an event without an end is taken to last.
    public static let assumedDuration: TimeInterval = 4 * 3600
    /// The longest relevant interval Wallet takes.
    public static let maxRelevantInterval: TimeInterval = 24 * 3600
    /// The most intervals written for one event.
    public static let maxRelevantIntervals = 366
    /// `maxDistance` in meters written with the venue's location. Wallet uses the smaller of this
    /// and its own default for event tickets (about a kilometre): 500 m brings the pass up when the
    /// holder reaches the venue, still wide enough for a stadium or campus given as one point.
    public static let locationMaxDistance = 500

    /// The `relevantDates` intervals of an event, in order; see the type's comment for the rules.
    public static func relevantIntervals(startsAt: Date, endsAt: Date?, timeZone: TimeZone) -> [DateInterval] {
        let opening = startsAt.addingTimeInterval(-relevanceLeadTime)
        let end = endsAt.flatMap { $0 > startsAt ? $0 : nil } ?? startsAt.addingTimeInterval(assumedDuration)
        if end.timeIntervalSince(opening) <= maxRelevantInterval { return [DateInterval(start: opening, end: end)] }

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var intervals: [DateInterval] = []
        var dayStart = startsAt
        while dayStart < end, intervals.count < maxRelevantIntervals {
            let midnight = nextMidnight(after: dayStart, calendar: calendar)
            let dayEnd = min(midnight, end)
            let start = intervals.isEmpty ? max(opening, dayEnd.addingTimeInterval(-maxRelevantInterval)) : dayStart
            intervals.append(DateInterval(start: start, end: min(dayEnd, start.addingTimeInterval(maxRelevantInterval))))
            dayStart = midnight
        }
        return intervals
    }

    /// The first local midnight after `date` (the start of the next calendar day, which is not
    /// 00:00 where a clock change skips midnight); a day later if the calendar cannot say.
    private static func nextMidnight(after date: Date, calendar: Calendar) -> Date {
        let today = calendar.startOfDay(for: date)
        if let tomorrow = calendar.date(byAdding: .day, value: 1, to: today) {
            let midnight = calendar.startOfDay(for: tomorrow)
            if midnight > date { return midnight }
        }
        return date.addingTimeInterval(maxRelevantInterval)
    }
}

import Foundation

/// The rule that keeps announcements from alerting phones too often: two notifying announcements
/// of one event are at least `interval` apart (`ANNOUNCEMENT_INTERVAL`), whether sent or scheduled.
/// Pure: the operations hand it the times and refuse with the time it returns.
enum AnnouncementPacing {
    /// The earliest time at or after `time` that is at least `interval` away from each of
    /// `others` (the event's other notifying announcements, sent or scheduled). `time` itself when
    /// it already is; with an interval of 0, always `time`.
    static func allowed(at time: Date, others: [Date], interval: TimeInterval) -> Date {
        guard interval > 0 else { return time }
        var candidate = time
        // Each move puts the candidate exactly `interval` after a conflicting time, which then
        // conflicts no more; the candidate only moves later, so this ends after `others.count` moves.
        for other in others.sorted() where abs(candidate.timeIntervalSince(other)) < interval {
            candidate = other.addingTimeInterval(interval)
        }
        return candidate
    }
}

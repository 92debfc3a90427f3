import Foundation
import PassBundle
import SystemSupport
import Testing

@Suite("relevantDates intervals", .offCooperativePool)
struct RelevantDatesTests {
    private let berlin = TimeZone(identifier: "Europe/Berlin")

    /// The intervals as `start…end` in the zone's ISO 8601 form.
    private func intervals(_ start: String, _ end: String?, zone: TimeZone?, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let zone = try #require(zone, sourceLocation: sourceLocation)
        let found = WalletEventDetails.relevantIntervals(
            startsAt: try WalletEventFixture.date(start, sourceLocation: sourceLocation),
            endsAt: try end.map { try WalletEventFixture.date($0, sourceLocation: sourceLocation) },
            timeZone: zone
        )
        for interval in found {
            #expect(interval.duration <= 24 * 3600, "\(interval) is longer than 24 h", sourceLocation: sourceLocation)
            #expect(interval.duration > 0, sourceLocation: sourceLocation)
        }
        return found.map { ISO8601Zoned.format($0.start, in: zone) + "…" + ISO8601Zoned.format($0.end, in: zone) }
    }

    @Test("a three-day event across the autumn clock change gets one interval per day, the 25-hour day cut to 24")
    func autumnChange() throws {
        // Clocks in Berlin go back from 03:00 to 02:00 on Sunday 31 October 2027.
        let found = try intervals("2027-10-30T10:00:00+02:00", "2027-11-01T18:00:00+01:00", zone: berlin)
        #expect(found == [
            "2027-10-30T07:00:00+02:00…2027-10-31T00:00:00+02:00",
            "2027-10-31T00:00:00+02:00…2027-10-31T23:00:00+01:00",
            "2027-11-01T00:00:00+01:00…2027-11-01T18:00:00+01:00",
        ])
    }

    @Test("a three-day event across the spring clock change: the 23-hour day is whole")
    func springChange() throws {
        // Clocks in Berlin go forward from 02:00 to 03:00 on Sunday 28 March 2027.
        let found = try intervals("2027-03-27T09:00:00+01:00", "2027-03-29T17:00:00+02:00", zone: berlin)
        #expect(found == [
            "2027-03-27T06:00:00+01:00…2027-03-28T00:00:00+01:00",
            "2027-03-28T00:00:00+01:00…2027-03-29T00:00:00+02:00",
            "2027-03-29T00:00:00+02:00…2027-03-29T17:00:00+02:00",
        ])
    }

    @Test("a single-day event opens three hours before and ends with the event, or four hours after its start", arguments: [
        ("2027-06-12T19:30:00+02:00", "2027-06-12T22:30:00+02:00", "2027-06-12T16:30:00+02:00…2027-06-12T22:30:00+02:00"),
        ("2027-06-12T19:30:00+02:00", nil, "2027-06-12T16:30:00+02:00…2027-06-12T23:30:00+02:00"),
        // An end before the start counts as none.
        ("2027-06-12T19:30:00+02:00", "2027-06-12T18:00:00+02:00", "2027-06-12T16:30:00+02:00…2027-06-12T23:30:00+02:00"),
        // Past midnight, but within 24 hours: still one interval.
        ("2027-06-12T22:00:00+02:00", "2027-06-13T02:00:00+02:00", "2027-06-12T19:00:00+02:00…2027-06-13T02:00:00+02:00"),
        ("2027-06-12T08:00:00+02:00", "2027-06-13T05:00:00+02:00", "2027-06-12T05:00:00+02:00…2027-06-13T05:00:00+02:00"),
    ] as [(String, String?, String)])
    func singleDay(start: String, end: String?, expected: String) throws {
        #expect(try intervals(start, end, zone: berlin) == [expected])
    }

    @Test("a first day whose lead reaches into the day before is shortened at its start")
    func leadBeforeMidnight() throws {
        let found = try intervals("2027-06-12T01:00:00+02:00", "2027-06-13T12:00:00+02:00", zone: berlin)
        #expect(found == [
            "2027-06-12T00:00:00+02:00…2027-06-13T00:00:00+02:00",
            "2027-06-13T00:00:00+02:00…2027-06-13T12:00:00+02:00",
        ])
    }

    @Test("days are the venue's: the same instants cut at Tokyo's midnight")
    func venueZone() throws {
        let found = try intervals("2027-06-12T10:00:00+09:00", "2027-06-13T18:00:00+09:00", zone: TimeZone(identifier: "Asia/Tokyo"))
        #expect(found == [
            "2027-06-12T07:00:00+09:00…2027-06-13T00:00:00+09:00",
            "2027-06-13T00:00:00+09:00…2027-06-13T18:00:00+09:00",
        ])
    }

    @Test("an event of years gets at most a year of intervals")
    func bounded() throws {
        let found = try intervals("2027-01-01T10:00:00+01:00", "2029-01-01T10:00:00+01:00", zone: berlin)
        #expect(found.count == WalletEventDetails.maxRelevantIntervals)
        #expect(found.last == "2028-01-01T00:00:00+01:00…2028-01-02T00:00:00+01:00")
    }
}

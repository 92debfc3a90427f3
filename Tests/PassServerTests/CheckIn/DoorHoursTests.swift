import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Wrong-day refusals: a ticket of an archived event, or of an event that ended more than
/// `CHECKIN_GRACE` (12 hours) before the scan, is refused with its own answer and not checked in;
/// within the grace it checks in. An event without an end is taken to last 4 hours.
@Suite("Check-in: archived and ended events", .offCooperativePool, .timeLimit(.minutes(3)))
struct DoorHoursTests {
    static let hour: TimeInterval = 3_600

    /// An event through the admin API, starting `startsAt` (and ending `endsAt`, when given).
    static func event(_ app: TestApp, name: String, startsAt: Date, endsAt: Date? = nil) throws -> String {
        let ends = endsAt.map { #","endsAt":"\#(ISODate.format($0))""# } ?? ""
        let response = try app.admin(
            "POST", "/admin/v1/events", json: #"{"name":"\#(name)","venue":"Hall","startsAt":"\#(ISODate.format(startsAt))"\#(ends),"timeZone":"Europe/Lisbon","confirmPastStart":true}"#
        )
        guard response.status == 201, let id = response.jsonObject?["id"] as? String else {
            throw TestClient.Failure(description: "event not created: \(response.status) \(response.text)")
        }
        return id
    }

    @Test("the rule on its own: archived, ended beyond the grace, within it, without an end, a ticket without an event")
    func rule() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let hours = DoorHours()
        func closed(endsAt: Date?, archivedAt: Date? = nil, at time: Date, _ rule: DoorHours = DoorHours()) -> DoorHours.Closed? {
            rule.closed(startsAt: start, endsAt: endsAt, archivedAt: archivedAt, at: time)
        }
        #expect(hours.grace == 12 * Self.hour)
        let end = start.addingTimeInterval(3 * Self.hour)
        #expect(closed(endsAt: end, at: start.addingTimeInterval(-48 * Self.hour)) == nil, "early tickets are not refused")
        #expect(closed(endsAt: end, at: start.addingTimeInterval(15 * Self.hour)) == nil)
        #expect(closed(endsAt: end, at: start.addingTimeInterval(15 * Self.hour + 1)) == .ended(at: end))
        #expect(DoorHours.end(startsAt: start, endsAt: nil) == start.addingTimeInterval(4 * Self.hour))
        #expect(closed(endsAt: nil, at: start.addingTimeInterval(16 * Self.hour)) == nil)
        #expect(closed(endsAt: nil, at: start.addingTimeInterval(16 * Self.hour + 1)) == .ended(at: start.addingTimeInterval(4 * Self.hour)))
        // An end not after the start counts as none.
        #expect(DoorHours.end(startsAt: start, endsAt: start) == start.addingTimeInterval(4 * Self.hour))
        let archivedAt = start.addingTimeInterval(-Self.hour)
        #expect(closed(endsAt: nil, archivedAt: archivedAt, at: start) == .archived(at: archivedAt))
        #expect(hours.closed(nil, at: start.addingTimeInterval(1e6)) == nil, "a ticket without an event")
        #expect(closed(endsAt: end, at: end.addingTimeInterval(1), DoorHours(grace: 0)) == .ended(at: end))
    }

    @Test("archived, ended beyond the grace: refused with their own answers and not checked in; within the grace: checked in", arguments: Backend.allCases)
    func refusals(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let now = Date()
        let scanner = try Scanner(app)
        let endedLong = try Self.event(app, name: "Last Night", startsAt: now.addingTimeInterval(-16 * Self.hour), endsAt: now.addingTimeInterval(-13 * Self.hour))
        let endedRecently = try Self.event(app, name: "Tonight", startsAt: now.addingTimeInterval(-14 * Self.hour), endsAt: now.addingTimeInterval(-11 * Self.hour))
        let openEndedOld = try Self.event(app, name: "Yesterday", startsAt: now.addingTimeInterval(-17 * Self.hour))
        let openEndedRecent = try Self.event(app, name: "Today", startsAt: now.addingTimeInterval(-15 * Self.hour))
        let archived = try app.createEvent(name: "Archived")
        let late = try app.issueTicket(event: endedLong, attendee: "Late Larry")
        let inGrace = try app.issueTicket(event: endedRecently)
        let oldOpen = try app.issueTicket(event: openEndedOld)
        let recentOpen = try app.issueTicket(event: openEndedRecent)
        let shelved = try app.issueTicket(event: archived, attendee: "Shelved Sam")
        #expect(try app.admin("POST", "/admin/v1/events/\(archived)/archive").status == 200)

        let ended = try scanner.scan(try scanner.code(late), gate: "North")
        #expect(ended.status == 422, "\(ended.text)")
        #expect(ended.jsonObject?["result"] as? String == "event_ended")
        #expect(ended.errorCode == "event_ended")
        #expect(ended.jsonObject?["attendeeName"] as? String == "Late Larry")
        #expect(ended.jsonObject?["eventId"] as? String == endedLong)
        let endedAt = (ended.jsonObject?["eventEndedAt"] as? String).flatMap(ISODate.parse)
        #expect(endedAt.map { abs($0.timeIntervalSince(now.addingTimeInterval(-13 * Self.hour))) < 1 } == true, "\(ended.text)")
        // By its typed check code too.
        #expect(try scanner.scan(try scanner.checkCode(late), event: endedLong).jsonObject?["result"] as? String == "event_ended")
        let openEnded = try scanner.scan(try scanner.code(oldOpen))
        #expect(openEnded.jsonObject?["result"] as? String == "event_ended", "\(openEnded.text)")

        let shelf = try scanner.scan(try scanner.code(shelved))
        #expect(shelf.status == 422)
        #expect(shelf.jsonObject?["result"] as? String == "event_archived")
        #expect(shelf.jsonObject?["attendeeName"] as? String == "Shelved Sam")

        for refused in [late, oldOpen, shelved] {
            #expect(try app.admin("GET", "/admin/v1/tickets/\(refused)").jsonObject?["checkedInAt"] == nil, "\(refused) was checked in")
        }
        #expect(try scanner.scan(try scanner.code(inGrace)).status == 200)
        #expect(try scanner.scan(try scanner.code(recentOpen)).status == 200)

        // A cancelled ticket of an ended event is answered as cancelled.
        let cancelled = try app.issueTicket(event: endedLong)
        #expect(try app.admin("POST", "/admin/v1/tickets/\(cancelled)/cancel", json: "{}").status == 200)
        #expect(try scanner.scan(try scanner.code(cancelled)).jsonObject?["result"] as? String == "cancelled")
        // Unarchived, its tickets check in again.
        #expect(try app.admin("POST", "/admin/v1/events/\(archived)/unarchive").status == 200)
        #expect(try scanner.scan(try scanner.code(shelved)).status == 200)

        let metrics = try app.request("GET", "/metrics").text
        #expect(metrics.contains(#"passserver_checkins_total{result="event_ended"} 3"#))
        #expect(metrics.contains(#"passserver_checkins_total{result="event_archived"} 1"#))
    }

    @Test("CHECKIN_GRACE sets the grace; an offline scan made within it still checks in when sent after it", arguments: Backend.allCases)
    func configuredGrace(backend: Backend) throws {
        let app = try TestApp.start(backend) { $0.checkIn.grace = 3_600 }
        defer { app.stop() }
        let now = Date()
        let scanner = try Scanner(app)
        let event = try Self.event(app, name: "Matinee", startsAt: now.addingTimeInterval(-4 * Self.hour), endsAt: now.addingTimeInterval(-2 * Self.hour))
        let recent = try Self.event(app, name: "Evening", startsAt: now.addingTimeInterval(-3 * Self.hour), endsAt: now.addingTimeInterval(-0.5 * Self.hour))
        let tickets = try Scanner.issue(3, app: app, event: event)
        let evening = try app.issueTicket(event: recent)
        try Scanner.backdate(app, by: 5 * Self.hour)
        #expect(try scanner.scan(try scanner.code(tickets[0])).jsonObject?["result"] as? String == "event_ended")
        #expect(try scanner.scan(try scanner.code(evening)).status == 200)
        // Kept offline: one scanned during the event (checked in), one after the grace (refused).
        let batch = try scanner.batch([
            (try scanner.code(tickets[1]), "South", now.addingTimeInterval(-2.5 * Self.hour)),
            (try scanner.code(tickets[2]), "South", now.addingTimeInterval(-0.5 * Self.hour)),
        ])
        let results = try #require(batch.jsonObject?["results"] as? [[String: Any]], "\(batch.text)")
        #expect(results.map { $0["result"] as? String } == ["checked_in", "event_ended"])
        #expect(results.map { $0["status"] as? Int } == [200, 422])
        #expect((batch.jsonObject?["counts"] as? [String: Int]) == ["checked_in": 1, "event_ended": 1])
    }
}

import Foundation
import PassBundle
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The pacing rule of alerting announcements, and the scheduled edit's stored form, as pure values.
@Suite("Announcement pacing and scheduled payloads", .offCooperativePool)
struct AnnouncementPacingTests {
    let t0 = Date(timeIntervalSince1970: 1_900_000_000)

    @Test("allowed at the time asked when nothing is within the interval; otherwise right after what is in the way")
    func allowedTimes() {
        let minutes = { (count: Double) in self.t0.addingTimeInterval(count * 60) }
        #expect(AnnouncementPacing.allowed(at: minutes(20), others: [], interval: 600) == minutes(20))
        #expect(AnnouncementPacing.allowed(at: minutes(20), others: [minutes(10), minutes(30)], interval: 600) == minutes(20), "exactly 10 minutes apart is fine")
        #expect(AnnouncementPacing.allowed(at: minutes(12), others: [minutes(10)], interval: 600) == minutes(20), "after a sent one")
        #expect(AnnouncementPacing.allowed(at: minutes(8), others: [minutes(10)], interval: 600) == minutes(20), "before a scheduled one: after it")
        // A chain: each move lands clear of the ones before it.
        #expect(AnnouncementPacing.allowed(at: minutes(1), others: [minutes(25), minutes(0), minutes(14)], interval: 600) == minutes(35))
        #expect(AnnouncementPacing.allowed(at: minutes(1), others: [minutes(0)], interval: 0) == minutes(1), "0: no limit")
    }

    @Test("a scheduled edit's payload keeps what it names: a removed end, a design, dates to the millisecond")
    func payloadRoundTrip() throws {
        var edit = EventEdit()
        edit.venue = "Hall"
        edit.startsAt = Date(timeIntervalSince1970: 1_900_000_000.123)
        edit.endsAt = .some(nil)
        let payload = EventEditPayload(edit: edit, design: PassDesign(backgroundColor: "rgb(1, 2, 3)"))
        let text = try ScheduledPayload.encode(payload)
        #expect(text.contains(#""endsAt":null"#))
        let action = ScheduledAction(id: "x", eventID: "e", kind: .eventEdit, dueAt: t0, payload: text, createdAt: t0, updatedAt: t0)
        let read = try ScheduledPayload.decode(EventEditPayload.self, of: action)
        #expect(read == payload)
        var kept = edit
        kept.endsAt = nil
        let absent = try ScheduledPayload.decode(
            EventEditPayload.self, of: ScheduledAction(id: "y", eventID: "e", kind: .eventEdit, dueAt: t0, payload: try ScheduledPayload.encode(EventEditPayload(edit: kept)), createdAt: t0, updatedAt: t0)
        )
        #expect(absent.edit.endsAt == nil, "an end left as it is stays absent, not removed")
    }

    @Test("ANNOUNCEMENT_INTERVAL: 10 minutes unless set, a duration from 0 (no limit) to a day")
    func setting() throws {
        #expect(try Configuration.load(environment: [:]).announcements.interval == 600)
        #expect(try Configuration.load(environment: ["ANNOUNCEMENT_INTERVAL": "0"]).announcements.interval == 0)
        #expect(try Configuration.load(environment: ["ANNOUNCEMENT_INTERVAL": "90s"]).announcements.interval == 90)
        #expect(try Configuration.load(environment: [:], arguments: ["--announcement-interval", "1h"]).announcements.interval == 3_600)
        for refused in ["-1", "2d", "soon"] {
            #expect(throws: ConfigurationError.self, "\(refused)") { _ = try Configuration.load(environment: ["ANNOUNCEMENT_INTERVAL": refused]) }
        }
    }
}

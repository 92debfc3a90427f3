import Foundation
import PassBundle
import Testing

@testable import PassServer
@testable import Storage

/// The event page's announcements and scheduled changes as values: an admin gets the forms and the
/// buttons, a viewer the lists only; times in the event's zone; what organizers typed stays text.
@Suite("Dashboard: announcements and scheduled changes as values", .offCooperativePool)
struct SchedulingSectionsTests {
    static let sent = Date(timeIntervalSince1970: 1803895200)  // 2027-03-01T10:00:00Z, 19:00 in Tokyo

    static func sections(_ visitor: DashboardSessions.Visitor) throws -> String {
        let event = DashboardPagesTests.event()
        let announcement = Announcement(id: "a1", eventID: event.id, message: "<script>alert(1)</script>\nLine two", notify: true, sentAt: sent, jobID: "j1")
        let job = Job(
            id: "j1", kind: Job.announcementKind, eventID: event.id, state: .done, total: 4, done: 4, failed: 0, cursor: 0, claimedUntil: nil,
            startedAt: sent, finishedAt: sent, error: nil, createdAt: sent
        )
        let tally = EventTally(total: Tally(devices: 6, devicesUpToDate: 4), byJob: ["j1": Tally(devices: 5, devicesUpToDate: 3)])
        let scheduled = ScheduledAction(
            id: "a2", eventID: event.id, kind: .announcement, dueAt: sent.addingTimeInterval(3_600),
            payload: try ScheduledPayload.encode(AnnouncementPayload(message: "Later \"quoted\"", notify: false)), createdAt: sent, updatedAt: sent
        )
        var edit = EventEdit()
        edit.venue = "<b>Hall B</b>"
        edit.endsAt = .some(nil)
        let change = ScheduledAction(
            id: "c1", eventID: event.id, kind: .eventEdit, dueAt: sent.addingTimeInterval(7_200), payload: try ScheduledPayload.encode(EventEditPayload(edit: edit)),
            createdAt: sent, updatedAt: sent
        )
        let sections = SchedulingSections(
            event: event,
            announcements: [
                AnnouncementItem(scheduled: scheduled, payload: AnnouncementPayload(message: "Later \"quoted\"", notify: false)),
                AnnouncementItem(announcement, current: EventAnnouncement(id: "a1", message: announcement.message, notify: true), job: job, tally: tally),
            ],
            changes: [ScheduledChange(action: change, payload: EventEditPayload(edit: edit))], visitor: visitor
        )
        return sections.render.markup
    }

    @Test("an admin gets the form and the buttons; times in the event's zone; every typed text escaped")
    func admin() throws {
        let page = try Self.sections(DashboardPagesTests.admin)
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !page.contains("<script>"))
        #expect(page.contains("&lt;b&gt;Hall B&lt;/b&gt;") && !page.contains("<b>Hall B"))
        #expect(page.contains("2027-03-01 19:00"), "sent at 19:00 Tokyo time")
        #expect(page.contains("2027-03-01 20:00") && page.contains("2027-03-01 21:00"))
        #expect(page.contains("3 of 5"), "the reach of its job")
        #expect(page.contains("on the passes") && page.contains("scheduled") && page.contains("pending"))
        #expect(page.contains("Venue: &lt;b&gt;Hall B&lt;/b&gt;") && page.contains("No end"))
        #expect(page.contains(#"action="/admin/events/ev1/announcements""#))
        #expect(page.contains(#"action="/admin/events/ev1/announcements/a1/withdraw""#))
        #expect(page.contains(#"action="/admin/events/ev1/announcements/a2/withdraw""#), "the scheduled one is cancelled there")
        #expect(page.contains(#"href="/admin/events/ev1/scheduled/c1""#) && page.contains(#"action="/admin/events/ev1/scheduled/c1/cancel""#))
        #expect(page.contains("csrf-admin"))
    }

    @Test("a viewer reads the lists without a form or a button")
    func viewer() throws {
        let page = try Self.sections(DashboardPagesTests.viewer)
        #expect(page.contains("3 of 5") && page.contains("Venue:"))
        #expect(!page.contains("<form") && !page.contains("<button") && !page.contains("/scheduled/c1\""))
    }
}

import Foundation
import HTTPServer
package import Storage

extension DashboardController {
    /// `GET /admin/events/{id}/attendance`: the event's attendance, rendered by `AttendancePage`.
    func attendancePage(_ request: Request, _ visitor: DashboardSessions.Visitor) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        return .html(try AttendancePage.load(event, store: store, visitor: visitor).render())
    }
}

extension AttendancePage {
    /// The page of `event` with its numbers read from `store` in one read session.
    static func load(_ event: Event, store: any Store, visitor: DashboardSessions.Visitor) throws -> AttendancePage {
        let offset = Int64((TimeZone(identifier: event.timeZone) ?? .gmt).secondsFromGMT(for: event.startsAt)) * 1_000
        let attendance = try store.withSession(.read) { try Attendance.load($0, eventID: event.id, offsetMillis: offset) }
        return AttendancePage(event: event, attendance: attendance, visitor: visitor)
    }
}

/// The attendance page outside a request: what the attendance benchmark measures
/// (`pass-server-bench attendance`).
package enum AttendanceMarkup {
    /// The markup of `eventID`'s page as an admin sees it, read from `store` as the page reads it.
    package static func render(eventID: String, store: any Store) throws -> String {
        guard let event = try store.withSession(.read, { try $0.events.event(id: eventID) }) else { throw OrganizerError.notFound("No such event.") }
        let visitor = DashboardSessions.Visitor(sessionIDHash: [], tokenName: "bench", role: .admin, csrfToken: "")
        return try AttendancePage.load(event, store: store, visitor: visitor).render().markup
    }
}

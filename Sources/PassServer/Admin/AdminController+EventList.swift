import Foundation
import HTTPServer
import Storage

extension AdminController {
    /// `GET /admin/v1/events`: newest first (start time descending, then id), each with its counts
    /// and reach, filtered by `q` (a case-insensitive substring of name or venue), `from`
    /// (starting at or after), `to` (starting before) and `archived`, paged with `cursor` and `limit`.
    func listEvents(_ request: Request) throws -> Response {
        var query = AdminInput.query(request)
        let list = try organizer.events(query.eventQuery())
        return .json(EventListBody(events: list.events.map(EventBody.init), nextCursor: list.nextCursor), encoder: .api)
    }

    /// `POST /admin/v1/events/{eventId}/archive`: from now on changes of the event and its tickets
    /// reach the passes but push no phone. Idempotent.
    func archiveEvent(_ request: Request) throws -> Response {
        try setArchived(true, request)
    }

    /// `POST /admin/v1/events/{eventId}/unarchive`: changes push phones again. Idempotent.
    func unarchiveEvent(_ request: Request) throws -> Response {
        try setArchived(false, request)
    }

    private func setArchived(_ archived: Bool, _ request: Request) throws -> Response {
        let existing = try existingEvent(request)
        try AdminInput(request, allowed: [], bodyRequired: false).validate()
        return .json(EventBody(try organizer.setArchived(archived, existing, requestID: request.requestID)), encoder: .api)
    }
}

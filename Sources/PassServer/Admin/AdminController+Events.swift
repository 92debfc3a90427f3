import Foundation
import HTTPServer
import Storage

extension AdminController {
    static let eventFields = Set(EventDraft.fields)

    /// `POST /admin/v1/events`: 201 with the event; 400 naming every invalid field.
    func createEvent(_ request: Request) throws -> Response {
        var input = try AdminInput(request, allowed: Self.eventFields.union(["confirmPastStart"]))
        var draft = input.eventDraft()
        draft.confirmPastStart = input.boolean("confirmPastStart").value ?? false
        draft.unreadable = input.unreadable
        let event = try organizer.createEvent(draft, requestID: request.requestID)
        return .json(EventBody(event), status: 201, encoder: .api)
    }

    /// `GET /admin/v1/events/{eventId}`: the event with its counts, reach, check-ins and email states.
    func showEvent(_ request: Request) throws -> Response {
        let organizer = organizer
        // One connection for the lookup and the counts (nested sessions reuse it).
        let details = try store.withSession(.read) { _ in try organizer.details(of: try existingEvent(request)) }
        return .json(EventBody(details), encoder: .api)
    }

    /// `PATCH /admin/v1/events/{eventId}`: changes the fields the body names; a change that the
    /// passes show starts a re-push job.
    func updateEvent(_ request: Request) throws -> Response {
        let existing = try existingEvent(request)
        var input = try AdminInput(request, allowed: Self.eventFields)
        let update = try organizer.updateEvent(existing, input.eventEdit(), requestID: request.requestID)
        return .json(EventUpdateBody(update), encoder: .api)
    }
}

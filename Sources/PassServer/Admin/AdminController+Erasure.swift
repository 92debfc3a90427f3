import HTTPServer

extension AdminController {
    /// `DELETE /admin/v1/events/{eventId}?confirm={name}` (admin): 202 with the job that voids and
    /// pushes the event's passes; from then on the event answers 404. 409 `confirmation_mismatch`
    /// unless `confirm` is the event's name.
    func deleteEvent(_ request: Request) throws -> Response {
        let existing = try existingEvent(request)
        try AdminInput(request, allowed: [], bodyRequired: false).validate()
        let job = try organizer.deleteEvent(existing, confirmation: request.query["confirm"], requestID: request.requestID)
        return .json(JobBody(job), status: 202, encoder: .api)
    }

    /// `POST /admin/v1/events/{eventId}/erase?confirm={name}` (admin): erases the attendees' data
    /// of every ticket of the event; 200 with the event and the re-push job that brings phones
    /// the passes without it. 409 `confirmation_mismatch` unless `confirm` is the event's name.
    func eraseEvent(_ request: Request) throws -> Response {
        let existing = try existingEvent(request)
        try AdminInput(request, allowed: [], bodyRequired: false).validate()
        let update = try organizer.eraseEvent(existing, confirmation: request.query["confirm"], requestID: request.requestID)
        return .json(EventUpdateBody(update), encoder: .api)
    }
}

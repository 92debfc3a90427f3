import Foundation
import HTTPServer
import Storage

extension AdminController {
    /// `GET /admin/v1/events`: newest first (start time descending, then id), each with its counts
    /// and reach (read from the tallies of the whole page in one statement),
    /// filtered by `q` (a case-insensitive substring of name or venue), `from` (starting at or
    /// after), `to` (starting before) and `archived`, paged with `cursor` and `limit`.
    func listEvents(_ request: Request) throws -> Response {
        var query = AdminInput.query(request)
        return .json(try eventList(&query), encoder: .api)
    }

    /// One page of the events list as `query` (`q`, `from`, `to`, `archived`, `cursor`, `limit`) asks.
    func eventList(_ query: inout AdminInput) throws -> EventPage {
        var filter = EventFilter()
        filter.search = query.text("q", maxLength: 200).value
        filter.startsFrom = query.instant("from")
        filter.startsBefore = query.instant("to")
        switch query.choice("archived", ["true", "false"]) {
        case "true": filter.archived = true
        case "false": filter.archived = false
        default: break
        }
        var position: EventListPosition?
        if let raw = query.value("cursor") {
            if case .string(let text) = raw { position = EventCursor.decode(text) }
            if position == nil { query.problem("cursor", "must be a cursor from a previous page") }
        }
        let limit = query.integer("limit", in: 1...100, default: 20)
        try query.validate()
        let (page, totals, emails, checkedIn) = try store.withSession(.read) { session in
            let page = try session.events(matching: filter, after: position, limit: limit + 1)
            let ids = page.prefix(limit).map(\.id)
            return (page, try session.eventTotals(eventIDs: ids), try session.emailCounts(eventIDs: ids), try session.checkInCounts(eventIDs: ids))
        }
        let shown = page.prefix(limit)
        let next = page.count > limit ? shown.last.map { EventCursor.encode(EventListPosition(after: $0)) } : nil
        let events = shown.map { event in
            var body = EventBody(event, tally: totals[event.id] ?? Tally())
            body.emailStatus = EmailCountsBody(emails[event.id] ?? EmailCounts())
            body.counts?.checkedIn = checkedIn[event.id] ?? 0
            return body
        }
        return EventPage(events: events, nextCursor: next)
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
        return .json(EventBody(try setArchived(archived, existing, requestID: request.requestID)), encoder: .api)
    }

    /// Archives or unarchives the event. Idempotent.
    func setArchived(_ archived: Bool, _ existing: Event, requestID: String) throws -> Event {
        let event = try store.withSession(.write) { session in
            try session.setArchived(eventID: existing.id, archived: archived, now: now())
        }
        if (existing.archivedAt != nil) != archived {
            logger.info(archived ? "event archived" : "event unarchived", ["event.id": event.id, "request.id": requestID])
        }
        return event
    }
}

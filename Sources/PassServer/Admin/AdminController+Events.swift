import Foundation
import HTTPServer
import Storage

extension AdminController {
    static let eventFields: Set<String> = ["name", "venue", "startsAt", "endsAt", "timeZone", "template", "language"]

    func createEvent(_ request: Request) throws -> Response {
        var input = try AdminInput(request, allowed: Self.eventFields)
        return .json(EventBody(try createEvent(&input, requestID: request.requestID)), status: 201, encoder: .api)
    }

    /// Creates an event from `input` (an object read with `allowed: eventFields`); 400 naming
    /// every invalid field.
    func createEvent(_ input: inout AdminInput, requestID: String) throws -> Event {
        let name = input.requiredText("name")
        let venue = input.requiredText("venue")
        var startsAt: Date?
        switch input.date("startsAt") {
        case .value(let date): startsAt = date
        case .null, .absent: if !input.isPresent("startsAt") { input.problem("startsAt", "is required") }
        }
        let endsAt = input.date("endsAt").value
        let timeZone = input.timeZone("timeZone").value ?? "UTC"
        var template = "event-ticket"
        if case .value(let name) = input.string("template", maxLength: 64) {
            template = name
            checkTemplate(name, &input)
        }
        let language = input.language("language").value ?? "en"
        if let startsAt, let endsAt, endsAt < startsAt { input.problem("endsAt", Self.endsBeforeStartProblem) }
        try input.validate()
        guard let name, let venue, let startsAt else { throw HTTPError.badRequest("name, venue and startsAt are required.", code: "invalid_fields") }
        let event = try store.transaction { session in
            let event = try session.createEvent(
                NewEvent(name: name, venue: venue, startsAt: startsAt, endsAt: endsAt, timeZone: timeZone, template: template, language: language),
                now: now()
            )
            try requireBuildable { try passes.validate(event: event) }
            return event
        }
        logger.info("event created", ["event.id": event.id, "request.id": requestID])
        return event
    }

    func showEvent(_ request: Request) throws -> Response {
        // One connection for the lookup and the counts (nested sessions reuse it).
        let details = try store.withSession(.read) { _ in try eventDetails(try existingEvent(request)) }
        return .json(details, encoder: .api)
    }

    /// The event with its counts, reach, check-ins and email states.
    func eventDetails(_ event: Event) throws -> EventBody {
        // One read of the event's tallies: counts, reach, check-ins and emails, whatever its size.
        let total = try store.withSession(.read) { try $0.eventTally(eventID: event.id) }.total
        var body = EventBody(event, tally: total)
        body.emailStatus = EmailCountsBody(EmailCounts(queued: Int(total.emailsQueued), sent: Int(total.emailsSent), failed: Int(total.emailsFailed)))
        body.counts?.checkedIn = Int(total.checkedIn)
        return body
    }

    func updateEvent(_ request: Request) throws -> Response {
        let existing = try existingEvent(request)
        var input = try AdminInput(request, allowed: Self.eventFields)
        return .json(try updateEvent(existing, &input, requestID: request.requestID), encoder: .api)
    }

    /// Changes the fields `input` names; a change that the passes show starts a re-push job.
    func updateEvent(_ existing: Event, _ input: inout AdminInput, requestID: String) throws -> EventUpdateBody {
        var change = EventChange()
        change.name = input.text("name").value
        change.venue = input.text("venue").value
        change.startsAt = input.date("startsAt").value
        change.endsAt = input.date("endsAt", nullable: true).change
        change.timeZone = input.timeZone("timeZone").value
        change.language = input.language("language").value
        if case .value(let template) = input.string("template", maxLength: 64) {
            checkTemplate(template, &input)
            change.template = template
        }
        // Named with the other problems here, and checked again on the event as it is under the
        // update's row lock: two edits (one of the start, one of the end) that are each fine alone
        // cannot together leave the end before the start.
        if Self.endsBeforeStart(change, existing) { input.problem("endsAt", Self.endsBeforeStartProblem) }
        try input.validate()
        let (event, job) = try store.transaction { session in
            let (event, job) = try session.updateEvent(id: existing.id, now: now()) { current in
                if Self.endsBeforeStart(change, current) {
                    throw HTTPError.badRequest("endsAt: \(Self.endsBeforeStartProblem)", code: "invalid_fields")
                }
                return change
            }
            if job != nil { try requireBuildable { try passes.validate(event: event) } }
            return (event, job)
        }
        if let job {
            logger.info("event changed; re-push job created", ["event.id": event.id, "job.id": job.id, "request.id": requestID])
            jobCreated()
        }
        return EventUpdateBody(event: EventBody(event), job: job.map { .init(id: $0.id, state: $0.state.rawValue, total: $0.total) })
    }

    private static let endsBeforeStartProblem = "must not be before startsAt"

    /// Whether `change` applied to `event` would leave its end before its start.
    private static func endsBeforeStart(_ change: EventChange, _ event: Event) -> Bool {
        guard let ends = change.endsAt ?? event.endsAt else { return false }
        return ends < (change.startsAt ?? event.startsAt)
    }

    private func checkTemplate(_ name: String, _ input: inout AdminInput) {
        guard AdminIdentifiers.isPlausible(name), (try? passes.templates.template(named: name)) != nil else {
            input.problem("template", "no template named '\(name)'")
            return
        }
    }
}

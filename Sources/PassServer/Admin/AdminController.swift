import Foundation
import HTTPServer
import Logging
import Storage

/// The organizers' API under `/admin/v1`: events, tickets, jobs. Every route needs
/// `Authorization: Bearer <admin token>` of a role that permits it (`AdminController.routes`).
struct AdminController: Sendable {
    let store: any Store
    let passes: PassService
    let logger: Logger
    /// Called after a change enqueued pushes (wakes the dispatcher).
    let pushesEnqueued: @Sendable () -> Void
    /// Called after a job was created (wakes the job runner).
    let jobCreated: @Sendable () -> Void
    var now: @Sendable () -> Date = Date.init

    // MARK: Events

    private static let eventFields: Set<String> = ["name", "venue", "startsAt", "endsAt", "timeZone", "template"]

    func createEvent(_ request: Request) throws -> Response {
        var input = try AdminInput(request, allowed: Self.eventFields)
        let name = input.requiredText("name")
        let venue = input.requiredText("venue")
        let startsAt = input.requiredDate("startsAt")
        var endsAt: Date?
        if case .value(let date) = input.date("endsAt") { endsAt = date }
        var timeZone = "UTC"
        if case .value(let zone) = input.timeZone("timeZone") { timeZone = zone }
        var template = "event-ticket"
        if case .value(let name) = input.text("template", maxLength: 64) { template = name }
        checkTemplate(template, &input)
        if let startsAt, let endsAt, endsAt < startsAt { input.problem("endsAt", Self.endsBeforeStartProblem) }
        try input.validate()
        guard let name, let venue, let startsAt else { throw HTTPError.badRequest("name, venue and startsAt are required.", code: "invalid_fields") }
        let event = try store.createEvent(
            NewEvent(name: name, venue: venue, startsAt: startsAt, endsAt: endsAt, timeZone: timeZone, template: template), now: now()
        )
        logger.info("event created", ["event.id": event.id, "request.id": request.requestID])
        return .json(EventBody(event), status: 201, encoder: .api)
    }

    func showEvent(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        let tally = try store.withSession(.read) { try $0.eventTally(eventID: event.id) }
        return .json(EventBody(event, counts: EventCounts(tally.total), reach: ReachBody(tally.total)), encoder: .api)
    }

    func updateEvent(_ request: Request) throws -> Response {
        let existing = try existingEvent(request)
        var input = try AdminInput(request, allowed: Self.eventFields)
        var change = EventChange()
        if case .value(let name) = input.text("name") { change.name = name } else if input.isNull("name") { input.problem("name", "must not be null") }
        if case .value(let venue) = input.text("venue") { change.venue = venue } else if input.isNull("venue") { input.problem("venue", "must not be null") }
        switch input.date("startsAt") {
        case .value(let date): change.startsAt = date
        case .null: input.problem("startsAt", "must not be null")
        case .absent: break
        }
        switch input.date("endsAt") {
        case .value(let date): change.endsAt = .some(date)
        case .null: change.endsAt = .some(nil)
        case .absent: break
        }
        if case .value(let zone) = input.timeZone("timeZone") { change.timeZone = zone }
        if case .value(let template) = input.text("template", maxLength: 64) {
            checkTemplate(template, &input)
            change.template = template
        }
        // Named with the other problems here, and checked again on the event as it is under the
        // update's row lock: two edits (one of the start, one of the end) that are each fine alone
        // cannot together leave the end before the start.
        if Self.endsBeforeStart(change, existing) { input.problem("endsAt", Self.endsBeforeStartProblem) }
        try input.validate()
        let (event, job) = try store.withSession(.write) { session in
            try session.updateEvent(id: existing.id, now: now()) { current in
                if Self.endsBeforeStart(change, current) {
                    throw HTTPError.badRequest("endsAt: \(Self.endsBeforeStartProblem)", code: "invalid_fields")
                }
                return change
            }
        }
        if let job {
            logger.info("event changed; re-push job created", ["event.id": event.id, "job.id": job.id, "request.id": request.requestID])
            jobCreated()
        }
        return .json(EventUpdateBody(event: EventBody(event), job: job.map { .init(id: $0.id, state: $0.state.rawValue, total: $0.total) }), encoder: .api)
    }

    func showJob(_ request: Request) throws -> Response {
        guard let id = request.parameters["jobId"], AdminIdentifiers.isPlausible(id) else { throw HTTPError.notFound("No such job.") }
        let (job, reach) = try store.withSession(.read) { session -> (Job?, Tally?) in
            guard let job = try session.job(id: id) else { return (nil, nil) }
            return (job, try job.eventID.map { try session.eventTally(eventID: $0).share(of: job) })
        }
        guard let job else { throw HTTPError.notFound("No such job.") }
        return .json(JobBody(job, reach: reach.map(ReachBody.init)), encoder: .api)
    }

    // MARK: Helpers

    private static let endsBeforeStartProblem = "must not be before startsAt"

    /// Whether `change` applied to `event` would leave its end before its start.
    private static func endsBeforeStart(_ change: EventChange, _ event: Event) -> Bool {
        guard let ends = change.endsAt ?? event.endsAt else { return false }
        return ends < (change.startsAt ?? event.startsAt)
    }

    func existingEvent(_ request: Request) throws -> Event {
        guard let id = request.parameters["eventId"], AdminIdentifiers.isPlausible(id), let event = try store.event(id: id) else {
            throw HTTPError.notFound("No such event.")
        }
        return event
    }

    private func checkTemplate(_ name: String, _ input: inout AdminInput) {
        guard AdminIdentifiers.isPlausible(name), (try? passes.templates.template(named: name)) != nil else {
            input.problem("template", "no template named '\(name)'")
            return
        }
    }
}

/// Shapes of ids the admin API accepts before asking the database.
enum AdminIdentifiers {
    static func isPlausible(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }
}

import Foundation
import Storage

extension Organizer {
    /// Creates an event; `invalid` naming every problem of the draft (and the reading's).
    func createEvent(_ draft: EventDraft, requestID: String) throws -> Event {
        var check = FieldCheck(reported: draft.unreadable, fields: EventDraft.fields)
        let name = check.requiredText("name", draft.name)
        let venue = check.requiredText("venue", draft.venue)
        let startsAt = check.required("startsAt", draft.startsAt)
        let endsAt = check.value("endsAt", draft.endsAt)
        let timeZone = check.apply("timeZone", draft.timeZone, FieldRules.timeZone)
        let template = checkTemplate(draft.template, &check)
        let language = check.apply("language", draft.language, FieldRules.language)
        if let startsAt, let endsAt, endsAt < startsAt { check.problem("endsAt", Self.endsBeforeStartProblem) }
        try check.validate()
        guard let name, let venue, let startsAt else { throw OrganizerError.invalid(check.allIssues) }
        if startsAt < now() && !draft.confirmPastStart {
            throw OrganizerError.conflict(
                code: Self.startInPastCode,
                message: "startsAt: the event starts in the past; send \"confirmPastStart\": true to create it anyway"
            )
        }
        let new = NewEvent(
            name: name, venue: venue, startsAt: startsAt, endsAt: endsAt, timeZone: timeZone ?? "UTC", template: template ?? "event-ticket",
            language: language ?? "en"
        )
        let event = try store.transaction { session in
            let event = try session.events.createEvent(new, now: now())
            try requireBuildable { try passes.validate(event: event) }
            return event
        }
        logger.info("event created", ["event.id": event.id, "request.id": requestID])
        return event
    }

    /// Changes the fields the edit names; a change that the passes show starts a re-push job.
    /// `existing` as looked up (`event(id:)`); the change applies to the event as it is then.
    func updateEvent(_ existing: Event, _ edit: EventEdit, requestID: String) throws -> EventUpdate {
        try apply(try checkedChange(existing, edit), to: existing, requestID: requestID)
    }

    /// The change `edit` makes to `existing`, every field checked; `invalid` naming every problem.
    func checkedChange(_ existing: Event, _ edit: EventEdit) throws -> EventChange {
        var check = FieldCheck(reported: edit.unreadable, fields: EventDraft.fields)
        var change = EventChange()
        change.name = check.text("name", edit.name)
        change.venue = check.text("venue", edit.venue)
        change.startsAt = check.value("startsAt", edit.startsAt)
        change.endsAt = check.value("endsAt", edit.endsAt)
        change.timeZone = check.apply("timeZone", edit.timeZone, FieldRules.timeZone)
        change.language = check.apply("language", edit.language, FieldRules.language)
        change.template = checkTemplate(edit.template, &check)
        // Named with the other problems here, and checked again on the event as it is under the
        // update's row lock: two edits (one of the start, one of the end) that are each fine alone
        // cannot together leave the end before the start.
        if Self.endsBeforeStart(change, existing) { check.problem("endsAt", Self.endsBeforeStartProblem) }
        try check.validate()
        return change
    }

    /// Applies a checked change to the event as it is under its row lock, with the pass checked
    /// to build when the passes show the change; starts the re-push job that follows. `alongside`
    /// runs first in the same transaction (a design's new images are stored with it).
    func apply(
        _ change: EventChange, to existing: Event, requestID: String, logged message: String = "event changed; re-push job created",
        alongside: (StoreSession) throws -> Void = { _ in }
    ) throws -> EventUpdate {
        let (event, job) = try store.transaction { session in
            try alongside(session)
            let (event, job) = try session.events.updateEvent(id: existing.id, now: now()) { current in
                if Self.endsBeforeStart(change, current) { throw OrganizerError.invalid("endsAt", Self.endsBeforeStartProblem) }
                return change
            }
            if job != nil { try requireBuildable { try passes.validate(event: event) } }
            return (event, job)
        }
        if let job {
            logger.info(message, ["event.id": event.id, "job.id": job.id, "request.id": requestID])
            jobCreated()
        }
        return EventUpdate(event: event, job: job)
    }

    /// Archives the event (changes of it and its tickets reach the passes but push no phone) or
    /// unarchives it. Idempotent.
    func setArchived(_ archived: Bool, _ existing: Event, requestID: String) throws -> Event {
        let event = try store.withSession(.write) { session in
            try session.events.setArchived(eventID: existing.id, archived: archived, now: now())
        }
        if (existing.archivedAt != nil) != archived {
            logger.info(archived ? "event archived" : "event unarchived", ["event.id": event.id, "request.id": requestID])
        }
        return event
    }

    /// The event with its counts, reach, check-ins and email states.
    func details(of event: Event) throws -> EventDetails {
        // One read of the event's tallies: counts, reach, check-ins and emails, whatever its size.
        let (total, saved) = try store.withSession(.read) { session in
            (try session.reach.eventTally(eventID: event.id).total, googleWallet ? try session.google.googleWalletSaved(eventID: event.id) : nil)
        }
        return EventDetails(
            event: event, tally: total,
            emails: EmailCounts(queued: Int(total.emailsQueued), sent: Int(total.emailsSent), failed: Int(total.emailsFailed)),
            checkedIn: Int(total.checkedIn), googleWalletSaved: saved
        )
    }

    /// One page of the events as `query` asks, each with its counts and reach (read from the
    /// tallies of the whole page in one statement).
    func events(_ query: EventQuery) throws -> EventList {
        var check = FieldCheck(reported: query.unreadable, fields: EventQuery.fields)
        var filter = EventFilter()
        filter.search = check.text("q", query.search)
        filter.startsFrom = check.value("from", query.startsFrom)
        filter.startsBefore = check.value("to", query.startsBefore)
        filter.archived = check.value("archived", query.archived)
        var position: EventListPosition?
        if let cursor = check.value("cursor", query.cursor) {
            position = EventCursor.decode(cursor)
            if position == nil { check.problem("cursor", "must be a cursor from a previous page") }
        }
        let limit = check.integer("limit", query.limit, in: 1...100) ?? 20
        try check.validate()
        let (page, totals, emails, checkedIn, saved) = try store.withSession(.read) { session in
            let page = try session.events.events(matching: filter, after: position, limit: limit + 1)
            let ids = page.prefix(limit).map(\.id)
            return (
                page, try session.reach.eventTotals(eventIDs: ids), try session.mail.emailCounts(eventIDs: ids), try session.checkIns.checkInCounts(eventIDs: ids),
                googleWallet ? try session.google.googleWalletSaved(eventIDs: ids) : nil
            )
        }
        let shown = page.prefix(limit)
        let next = page.count > limit ? shown.last.map { EventCursor.encode(EventListPosition(after: $0)) } : nil
        let events = shown.map { event in
            EventDetails(
                event: event, tally: totals[event.id] ?? Tally(), emails: emails[event.id] ?? EmailCounts(), checkedIn: checkedIn[event.id] ?? 0,
                googleWalletSaved: saved.map { $0[event.id] ?? 0 }
            )
        }
        return EventList(events: events, nextCursor: next)
    }

    /// The refusal of a new event starting in the past without `confirmPastStart`.
    static let startInPastCode = "start_in_past"

    private static let endsBeforeStartProblem = "must not be before startsAt"

    /// Whether `change` applied to `event` would leave its end before its start.
    private static func endsBeforeStart(_ change: EventChange, _ event: Event) -> Bool {
        guard let ends = change.endsAt ?? event.endsAt else { return false }
        return ends < (change.startsAt ?? event.startsAt)
    }

    /// The template named, if it can be loaded; nil when none is named or after naming the problem.
    private func checkTemplate(_ name: String?, _ check: inout FieldCheck) -> String? {
        guard let name = check.apply("template", name, { FieldRules.length($0, maxLength: 64) }) else { return nil }
        guard hasTemplate(named: name) else {
            check.problem("template", "no template named '\(name)'")
            return nil
        }
        return name
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The organizers' operations called directly, on both backends: each one's result, and each
/// refusal with the issues it names (field by field), `notFound` and `conflict`.
@Suite("Organizer: events and tickets as typed operations", .offCooperativePool, .timeLimit(.minutes(4)))
struct OrganizerTests {
    /// An app serving `OrganizerSupport.passesDirectory()` (extra fields, a pass that cannot be
    /// built), and its organizer as the admin API and the dashboard use it (email off).
    static func start(_ backend: Backend) throws -> (TestApp, Organizer) {
        let app = try OrganizerSupport.start(backend)
        let admin = AdminController(store: app.store, passes: app.application.passes, logger: app.application.logger, pushesEnqueued: {}, jobCreated: {})
        return (app, admin.organizer)
    }

    static let opening = Date(timeIntervalSince1970: 1_803_000_000)

    static func draft(_ name: String = "Swift Night", template: String? = nil, startsAt: Date = opening) -> EventDraft {
        EventDraft(name: name, venue: "Tokyo Hall", startsAt: startsAt, timeZone: "Asia/Tokyo", template: template)
    }

    /// The fields an `invalid` refusal names, in order; [] for any other outcome.
    static func fields(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> [String] {
        do {
            try body()
            Issue.record("not refused", sourceLocation: sourceLocation)
            return []
        } catch OrganizerError.invalid(let issues) {
            return issues.map(\.field)
        } catch {
            Issue.record("refused otherwise: \(error)", sourceLocation: sourceLocation)
            return []
        }
    }

    /// The refusal `body` throws, if it is an `OrganizerError`.
    static func refusal(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> OrganizerError? {
        do {
            try body()
            Issue.record("not refused", sourceLocation: sourceLocation)
            return nil
        } catch let error as OrganizerError {
            return error
        } catch {
            Issue.record("refused otherwise: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test("createEvent: texts trimmed, defaults filled in; every problem named in field order, the reader's with the draft's", arguments: Backend.allCases)
    func createEvent(backend: Backend) throws {
        let (app, organizer) = try Self.start(backend)
        defer { app.stop() }
        var draft = Self.draft("  Swift Night \u{3000}")
        draft.timeZone = nil
        let event = try organizer.createEvent(draft, requestID: "t")
        #expect(event.name == "Swift Night")
        #expect(event.timeZone == "UTC" && event.template == "event-ticket" && event.language == "en")
        #expect(try organizer.event(id: event.id) == event)

        #expect(Self.fields { _ = try organizer.createEvent(EventDraft(), requestID: "t") } == ["name", "venue", "startsAt"])
        var bad = Self.draft("Bad\u{7}name", template: "no-such-template")
        bad.timeZone = "Mars/Olympus"
        bad.language = "english"
        bad.endsAt = Self.opening.addingTimeInterval(-60)
        bad.unreadable = [.init("zzz", "unknown field"), .init("venue", "must be a string")]
        let refused = Self.refusal { _ = try organizer.createEvent(bad, requestID: "t") }
        #expect(refused?.errorCode == "invalid_fields")
        #expect(refused.map { $0.issues(of: "zzz") + $0.issues(of: "venue") }?.map(\.message) == ["unknown field", "must be a string"])
        guard case .invalid(let issues)? = refused else { return }
        #expect(issues.map(\.field) == ["zzz", "name", "venue", "timeZone", "template", "language", "endsAt"])
        #expect(issues.last?.message == "must not be before startsAt")
        #expect(issues.first { $0.field == "template" }?.message == "no template named 'no-such-template'")
        #expect(try app.store.withSession(.read) { try $0.events.events(matching: EventFilter(), after: nil, limit: 10) }.count == 1, "nothing stored when refused")
        #expect(Self.refusal { _ = try organizer.event(id: "no-such-event") } == .notFound("No such event."))
        #expect(Self.refusal { _ = try organizer.event(id: "../x") } == .notFound("No such event."))
    }

    @Test("updateEvent: a change the passes show starts a job; the language alone does not; an end before the start is refused", arguments: Backend.allCases)
    func updateEvent(backend: Backend) throws {
        let (app, organizer) = try Self.start(backend)
        defer { app.stop() }
        let event = try organizer.createEvent(Self.draft(), requestID: "t")
        _ = try organizer.issueTicket(TicketDraft(attendeeName: "Ada"), of: event, notify: false, requestID: "t")

        let renamed = try organizer.updateEvent(event, EventEdit(name: " Swift Night II "), requestID: "t")
        #expect(renamed.event.name == "Swift Night II")
        #expect(renamed.job?.total == 1, "one pass to re-push")
        let progress = try organizer.job(id: try #require(renamed.job?.id))
        #expect(progress.job.eventID == event.id && progress.reach != nil && progress.emails == nil)
        #expect(Self.refusal { _ = try organizer.job(id: "no-such-job") } == .notFound("No such job."))
        let language = try organizer.updateEvent(renamed.event, EventEdit(language: "ja"), requestID: "t")
        #expect(language.event.language == "ja" && language.job == nil)

        let ended = try organizer.updateEvent(language.event, EventEdit(endsAt: .some(Self.opening.addingTimeInterval(3_600))), requestID: "t")
        #expect(ended.event.endsAt == Self.opening.addingTimeInterval(3_600))
        #expect(Self.fields { _ = try organizer.updateEvent(ended.event, EventEdit(startsAt: Self.opening.addingTimeInterval(7_200)), requestID: "t") } == ["endsAt"])
        let cleared = try organizer.updateEvent(ended.event, EventEdit(endsAt: .some(nil)), requestID: "t")
        #expect(cleared.event.endsAt == nil)
        #expect(Self.fields { _ = try organizer.updateEvent(cleared.event, EventEdit(name: " ", timeZone: "Nowhere"), requestID: "t") } == ["name", "timeZone"])
        // Checked again on the event as it is under the row lock: an end set meanwhile counts.
        let stale = cleared.event
        _ = try organizer.updateEvent(stale, EventEdit(endsAt: .some(Self.opening.addingTimeInterval(600))), requestID: "t")
        let late = Self.refusal { _ = try organizer.updateEvent(stale, EventEdit(startsAt: Self.opening.addingTimeInterval(3_600)), requestID: "t") }
        #expect(late == .invalid("endsAt", "must not be before startsAt"))
    }

    @Test("archive and unarchive: idempotent; the list filters by it", arguments: Backend.allCases)
    func archive(backend: Backend) throws {
        let (app, organizer) = try Self.start(backend)
        defer { app.stop() }
        let event = try organizer.createEvent(Self.draft(), requestID: "t")
        let archived = try organizer.setArchived(true, event, requestID: "t")
        #expect(archived.archivedAt != nil)
        #expect(try organizer.setArchived(true, archived, requestID: "t").archivedAt == archived.archivedAt)
        #expect(try organizer.events(EventQuery(archived: true)).events.map(\.event.id) == [event.id])
        #expect(try organizer.events(EventQuery(archived: false)).events.isEmpty)
        #expect(try organizer.setArchived(false, archived, requestID: "t").archivedAt == nil)
        #expect(try organizer.events(EventQuery(archived: false)).events.map(\.event.id) == [event.id])
    }

    @Test("events: search, upcoming and past, paging; a cursor or limit that is not one is refused", arguments: Backend.allCases)
    func events(backend: Backend) throws {
        let (app, organizer) = try Self.start(backend)
        defer { app.stop() }
        var ids: [String] = []
        for day in 0..<5 {
            ids.append(try organizer.createEvent(Self.draft("Night \(day)", startsAt: Self.opening.addingTimeInterval(Double(day) * 86_400)), requestID: "t").id)
        }
        _ = try organizer.createEvent(Self.draft("Matinee"), requestID: "t")
        #expect(try organizer.events(EventQuery(search: "matin")).events.map(\.event.name) == ["Matinee"])
        let upcoming = try organizer.events(EventQuery(startsFrom: Self.opening.addingTimeInterval(2 * 86_400)))
        #expect(upcoming.events.map(\.event.name) == ["Night 4", "Night 3", "Night 2"], "newest first")
        #expect(try organizer.events(EventQuery(startsBefore: Self.opening.addingTimeInterval(86_400))).events.count == 2)
        var seen: [String] = []
        var query = EventQuery(search: "Night", limit: 2)
        for _ in 0..<5 {
            let page = try organizer.events(query)
            #expect(page.events.count <= 2)
            seen += page.events.map(\.event.id)
            guard let next = page.nextCursor else { break }
            query.cursor = next
        }
        #expect(Set(seen) == Set(ids) && seen.count == 5)
        #expect(Self.fields { _ = try organizer.events(EventQuery(cursor: "nonsense")) } == ["cursor"])
        #expect(Self.fields { _ = try organizer.events(EventQuery(search: "\u{1}", limit: 0)) } == ["q", "limit"])
    }

    @Test("details: counts, check-ins and emails of the event's tallies", arguments: Backend.allCases)
    func details(backend: Backend) throws {
        let (app, organizer) = try Self.start(backend)
        defer { app.stop() }
        let event = try organizer.createEvent(Self.draft(), requestID: "t")
        let first = try organizer.issueTicket(TicketDraft(attendeeName: "Ada"), of: event, notify: false, requestID: "t")
        _ = try organizer.issueTicket(TicketDraft(attendeeName: "Grace"), of: event, notify: false, requestID: "t")
        _ = try organizer.cancelTicket(first.ticket.pass, reason: "moved", requestID: "t")
        let details = try organizer.details(of: event)
        #expect(details.tally.tickets == 2 && details.tally.cancelled == 1 && details.activeTickets == 1)
        #expect(details.checkedIn == 0 && details.emails == EmailCounts())
        #expect(try organizer.events(EventQuery()).events.first?.tally.tickets == 2)
    }

    @Test("issueTicket: created once per external id; problems named per field, extras included; email off is a conflict", arguments: Backend.allCases)
    func issueTicket(backend: Backend) throws {
        let (app, organizer) = try Self.start(backend)
        defer { app.stop() }
        let event = try organizer.createEvent(Self.draft(template: "seated-ticket"), requestID: "t")
        let draft = TicketDraft(attendeeName: " Ada ", attendeeEmail: "ada@example.org", externalID: "ext-1", extra: ["table": .number(7)])
        let issued = try organizer.issueTicket(draft, of: event, notify: false, requestID: "t")
        #expect(issued.created && issued.ticket.pass.attendeeName == "Ada" && issued.ticket.pass.extra["table"] == .integer(7))
        #expect(issued.ticket.isActive && issued.ticket.email == nil)
        let again = try organizer.issueTicket(draft, of: event, notify: false, requestID: "t")
        #expect(!again.created && again.ticket.pass.serialNumber == issued.ticket.pass.serialNumber)

        let bad = TicketDraft(attendeeEmail: "not an address", seat: String(repeating: "s", count: 65), extra: ["table": .text("seven"), "vip": .text("yes")])
        let refused = Self.refusal { _ = try organizer.issueTicket(bad, of: event, notify: false, requestID: "t") }
        guard case .invalid(let issues)? = refused else {
            Issue.record("not invalid: \(String(describing: refused))")
            return
        }
        #expect(issues.map(\.field) == ["attendeeName", "attendeeEmail", "seat", "extra.vip", "extra.table"])
        #expect(issues.map(\.message) == [
            "is required", "is not an email address", "must be at most 64 characters (Unicode scalars)", "unknown field", "must be a whole number",
        ])
        #expect(Self.fields { _ = try organizer.issueTicket(TicketDraft(attendeeName: "Bo"), of: event, notify: false, requestID: "t") } == ["extra.table"])
        let noAddress = TicketDraft(attendeeName: "Bo", extra: ["table": .number(2)])
        #expect(Self.fields { _ = try organizer.issueTicket(noAddress, of: event, notify: true, requestID: "t") } == ["notify"])
        var withAddress = noAddress
        withAddress.attendeeEmail = "bo@example.org"
        #expect(Self.refusal { _ = try organizer.issueTicket(withAddress, of: event, notify: true, requestID: "t") }?.errorCode == "email_disabled")

        // A value the template turns into a colour that is not one: the pass cannot be built.
        let colour = try organizer.createEvent(Self.draft(template: "colour-ticket"), requestID: "t")
        let unbuildable = TicketDraft(attendeeName: "Cy", extra: ["colour": .text("purple")])
        #expect(Self.fields { _ = try organizer.issueTicket(unbuildable, of: colour, notify: false, requestID: "t") } == ["pass"])
        let stored = try app.store.withSession(.read) { try $0.passes.passes(eventID: colour.id, matching: PassFilter(), after: 0, limit: 10) }
        #expect(stored.isEmpty, "rolled back")
    }

    @Test("updateTicket and cancelTicket: changes applied, a cancelled ticket and a taken external id are conflicts, cancelling twice changes nothing", arguments: Backend.allCases)
    func changeTicket(backend: Backend) throws {
        let (app, organizer) = try Self.start(backend)
        defer { app.stop() }
        let event = try organizer.createEvent(Self.draft(template: "noted-ticket"), requestID: "t")
        let ada = try organizer.issueTicket(TicketDraft(attendeeName: "Ada", seat: "A1", externalID: "a"), of: event, notify: false, requestID: "t").ticket
        let bo = try organizer.issueTicket(TicketDraft(attendeeName: "Bo", externalID: "b"), of: event, notify: false, requestID: "t").ticket

        let changed = try organizer.updateTicket(ada.pass, TicketEdit(attendeeName: "Ada L.", seat: .some(nil), extra: ["table": .number(3)]), requestID: "t")
        #expect(changed.pass.attendeeName == "Ada L." && changed.pass.seat == nil && changed.pass.extra["table"] == .integer(3))
        #expect(changed.pass.revision > ada.pass.revision)
        #expect(Self.fields { _ = try organizer.updateTicket(ada.pass, TicketEdit(attendeeName: "", attendeeEmail: .some("x"), extra: ["table": .number(99)]), requestID: "t") }
            == ["attendeeName", "attendeeEmail", "extra.table"])
        #expect(Self.refusal { _ = try organizer.updateTicket(bo.pass, TicketEdit(externalID: .some("a")), requestID: "t") }
            == .conflict(code: "external_id_exists", message: "Another ticket of the event has this externalId."))

        #expect(Self.fields { _ = try organizer.cancelTicket(bo.pass, reason: "bad\u{0}reason", requestID: "t") } == ["reason"])
        let cancelled = try organizer.cancelTicket(bo.pass, reason: " no show ", requestID: "t")
        #expect(!cancelled.isActive && cancelled.pass.cancellationReason == "no show")
        let twice = try organizer.cancelTicket(cancelled.pass, reason: "other", requestID: "t")
        #expect(twice.pass.revision == cancelled.pass.revision && twice.pass.cancellationReason == "no show")
        #expect(Self.refusal { _ = try organizer.updateTicket(cancelled.pass, TicketEdit(attendeeName: "Bob"), requestID: "t") }
            == .conflict(code: "ticket_cancelled", message: "A cancelled ticket cannot be changed."))
        #expect(Self.refusal { _ = try organizer.ticket(serialNumber: "NOPE") } == .notFound("No such ticket."))
        #expect(Self.refusal { _ = try organizer.ticket(serialNumber: nil) } == .notFound("No such ticket."))
    }

    @Test("rotateDownloadLink: a new link, the pass unchanged", arguments: Backend.allCases)
    func rotate(backend: Backend) throws {
        let (app, organizer) = try Self.start(backend)
        defer { app.stop() }
        let event = try organizer.createEvent(Self.draft(), requestID: "t")
        let ticket = try organizer.issueTicket(TicketDraft(attendeeName: "Ada"), of: event, notify: false, requestID: "t").ticket
        let before = try app.application.passes.downloadURL(for: ticket.pass)
        let rotated = try organizer.rotateDownloadLink(ticket.pass, requestID: "t")
        #expect(try app.application.passes.downloadURL(for: rotated.pass) != before)
        #expect(rotated.pass.revision == ticket.pass.revision, "no push: the pass itself did not change")
    }

    @Test("tickets: status, search and paging; a limit out of range is refused", arguments: Backend.allCases)
    func tickets(backend: Backend) throws {
        let (app, organizer) = try Self.start(backend)
        defer { app.stop() }
        let event = try organizer.createEvent(Self.draft(), requestID: "t")
        var passes: [StoredPass] = []
        for name in ["Ada", "Bo", "Cyrano Zed", "Di", "Ed"] {
            passes.append(try organizer.issueTicket(TicketDraft(attendeeName: name), of: event, notify: false, requestID: "t").ticket.pass)
        }
        _ = try organizer.cancelTicket(passes[1], reason: nil, requestID: "t")
        #expect(try organizer.tickets(of: event, TicketQuery(status: .cancelled)).tickets.map(\.pass.attendeeName) == ["Bo"])
        #expect(try organizer.tickets(of: event, TicketQuery(status: .active)).tickets.count == 4)
        #expect(try organizer.tickets(of: event, TicketQuery(search: "no z")).tickets.map(\.pass.attendeeName) == ["Cyrano Zed"])
        let first = try organizer.tickets(of: event, TicketQuery(limit: 2))
        #expect(first.tickets.map(\.pass.attendeeName) == ["Ada", "Bo"])
        let cursor = try #require(first.nextCursor.flatMap { Int64($0) })
        #expect(try organizer.tickets(of: event, TicketQuery(cursor: cursor, limit: 2)).tickets.map(\.pass.attendeeName) == ["Cyrano Zed", "Di"])
        #expect(Self.fields { _ = try organizer.tickets(of: event, TicketQuery(limit: 501)) } == ["limit"])
        let details = try organizer.details(of: passes[0])
        #expect(details.ticket.pass.serialNumber == passes[0].serialNumber && details.devices.isEmpty && details.pushes.isEmpty)
    }

    @Test("import: every invalid row named, nothing issued; then all at once; a second upload finds them", arguments: Backend.allCases)
    func importTickets(backend: Backend) throws {
        let (app, organizer) = try Self.start(backend)
        defer { app.stop() }
        let event = try organizer.createEvent(Self.draft(), requestID: "t")
        let rows = (0..<3).map { TicketImport.Row(number: $0 + 2, object: [:]) }
        let drafts = [
            2: TicketDraft(attendeeName: "Ada", externalID: "a"), 3: TicketDraft(attendeeName: "Bo", attendeeEmail: "nope"),
            4: TicketDraft(attendeeName: "Cy", externalID: "a"),
        ]
        let refused = organizer.checkImport(event, rows: rows, byColumn: true) { drafts[$0.number] ?? TicketDraft() }
        #expect(refused.problems == [
            RowIssue(row: 3, field: "attendeeEmail", message: "is not an email address"),
            RowIssue(row: 4, field: "externalId", message: "repeats the externalId of row 2"),
        ])
        guard case .invalid(let problems) = try organizer.importTickets(event, check: refused, notify: false, requestID: "t") else {
            Issue.record("imported with invalid rows")
            return
        }
        #expect(problems == refused.problems)
        #expect(try organizer.details(of: event).tally.tickets == 0)

        let valid = [2: TicketDraft(attendeeName: "Ada", externalID: "a"), 3: TicketDraft(attendeeName: "Bo"), 4: TicketDraft(attendeeName: "Cy", externalID: "c")]
        let check = organizer.checkImport(event, rows: rows, byColumn: true) { valid[$0.number] ?? TicketDraft() }
        guard case .imported(let result) = try organizer.importTickets(event, check: check, notify: false, requestID: "t") else {
            Issue.record("valid rows refused")
            return
        }
        #expect(result.created == 3 && result.existing == 0 && result.emailsQueued == nil)
        #expect(result.entries.map(\.row) == [2, 3, 4])
        let repeated = organizer.checkImport(event, rows: [rows[0]], byColumn: true) { _ in TicketDraft(attendeeName: "Ada again", externalID: "a") }
        guard case .imported(let second) = try organizer.importTickets(event, check: repeated, notify: false, requestID: "t") else {
            Issue.record("a repeated row refused")
            return
        }
        #expect(second.existing == 1 && second.entries.first?.pass.attendeeName == "Ada")
        #expect(Self.refusal { _ = try organizer.importTickets(event, check: check, notify: true, requestID: "t") }?.errorCode == "email_disabled")
    }

    @Test("over the API, the reader's problems and the organizer's come in one 400, in field order", arguments: Backend.allCases)
    func oneRefusal(backend: Backend) throws {
        let (app, _) = try Self.start(backend)
        defer { app.stop() }
        let event = try app.admin("POST", "/admin/v1/events", json: """
            {"zzz": 1, "name": 5, "venue": " ", "startsAt": "2027-03-01T19:00:00+09:00", "endsAt": "2027-03-01T18:00:00+09:00",
             "timeZone": "Mars", "template": 3}
            """)
        #expect(event.status == 400)
        #expect(OrganizerSupport.error(event)?["code"] as? String == "invalid_fields")
        #expect(OrganizerSupport.error(event)?["message"] as? String == [
            "zzz: unknown field", "name: must be a string", "venue: must not be empty",
            "timeZone: 'Mars' is not an IANA time zone identifier (e.g. Europe/Berlin)", "template: must be a string",
            "endsAt: must not be before startsAt",
        ].joined(separator: "; "))
        let id = try OrganizerSupport.createEvent(app)
        let ticket = try app.admin("POST", "/admin/v1/events/\(id)/tickets", json: #"{"attendeeName": " ", "attendeeEmail": 7, "extra": {"tier": 1}, "notify": "yes"}"#)
        #expect(ticket.status == 400)
        #expect(OrganizerSupport.error(ticket)?["message"] as? String
            == "attendeeName: must not be empty; attendeeEmail: must be a string; extra.tier: unknown field; notify: must be true or false")
        let change = try app.admin("PATCH", "/admin/v1/events/\(id)", json: #"{"endsAt": "2027-03-01T18:00:00+09:00", "language": "x"}"#)
        #expect(OrganizerSupport.error(change)?["message"] as? String
            == "language: must be a language code such as en, ja or pt-BR; endsAt: must not be before startsAt")
    }
}

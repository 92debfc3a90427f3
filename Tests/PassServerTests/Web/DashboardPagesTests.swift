import Foundation
import PassBundle
import PassIdentifiers
import Testing

@testable import PassServer
@testable import Storage

/// The dashboard's pages rendered from values built by hand, without a store or HTTP: what each
/// shows for an admin and for a viewer, and that no value anyone typed reaches the markup
/// unescaped.
@Suite("Dashboard pages as functions of their values", .offCooperativePool)
struct DashboardPagesTests {
    static let startsAt = Date(timeIntervalSince1970: 1803895200)  // 2027-03-01T10:00:00Z, 19:00 in Tokyo
    static let admin = DashboardSessions.Visitor(sessionIDHash: [], tokenName: "ops", role: .admin, csrfToken: "csrf-admin")
    static let viewer = DashboardSessions.Visitor(sessionIDHash: [], tokenName: "board", role: .viewer, csrfToken: "csrf-viewer")

    static func event(name: String = "Spring Gala", venue: String = "Hall A", timeZone: String = "Asia/Tokyo", id: String = "ev1") -> Event {
        Event(
            id: id, name: name, venue: venue, startsAt: startsAt, endsAt: nil, timeZone: timeZone, template: "event-ticket", revision: 1,
            createdAt: startsAt, updatedAt: startsAt, archivedAt: nil, language: "en"
        )
    }

    static func pass(name: String = "Ana Sousa", seat: String? = "A-12", email: String? = "ana@example.com", serial: String = "S1") -> StoredPass {
        StoredPass(
            id: 1, passTypeIdentifier: "pass.com.example.tickets", serialNumber: SerialNumber(serial)!,
            authenticationTokenHash: [], downloadTokenHash: [], downloadNonce: 0, eventID: "ev1", attendeeName: name, attendeeEmail: email,
            seat: seat, externalID: nil, extra: [:], status: .active, cancellationReason: nil, revision: 3, modifiedAt: 1_800_000_000,
            createdAt: startsAt, servedRevision: nil, servedAt: nil, language: nil, checkedInAt: nil
        )
    }

    static func details(_ event: Event, tickets: Int64 = 10, cancelled: Int64 = 1, devices: Int64 = 6, upToDate: Int64 = 4, checkedIn: Int = 3) -> EventDetails {
        EventDetails(
            event: event, tally: Tally(tickets: tickets, cancelled: cancelled, registeredDevices: 5, devices: devices, devicesUpToDate: upToDate),
            emails: EmailCounts(), checkedIn: checkedIn
        )
    }

    static func job(state: Job.State) -> JobProgress {
        let job = Job(
            id: "job7", kind: Job.repushKind, eventID: "ev1", state: state, total: 40, done: 12, failed: 0, cursor: 0, claimedUntil: nil,
            startedAt: startsAt, finishedAt: nil, error: nil, createdAt: startsAt
        )
        return JobProgress(job: job, reach: Reach(devices: 6, devicesUpToDate: 2, pushesPending: 4))
    }

    /// The text of the element with `id`, up to its closing tag (enough for the short elements asserted).
    static func element(_ id: String, in page: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        guard let start = page.range(of: #"id="\#(id)""#) else {
            Issue.record("no element #\(id)", sourceLocation: sourceLocation)
            return nil
        }
        let rest = page[start.upperBound...]
        guard let open = rest.firstIndex(of: ">"), let close = rest[open...].range(of: "</") else { return nil }
        return String(rest[rest.index(after: open)..<close.lowerBound])
    }

    @Test("the event page leads with tickets, phones up to date and checked in, then the other counts")
    func eventPageCounts() throws {
        let page = EventPage(details: Self.details(Self.event()), tickets: TicketList(tickets: [], nextCursor: nil), visitor: Self.admin).render().markup
        #expect(Self.element("count-tickets", in: page) == "10")
        #expect(Self.element("count-up-to-date", in: page) == "4")
        #expect(Self.element("count-checked-in", in: page) == "3")
        #expect(page.contains("of 6 registrations"))
        #expect(page.contains("of 9 active tickets"), "the active tickets are the issued ones less the cancelled")
        let headline = try #require(page.range(of: #"class="stats""#))
        let others = try #require(page.range(of: #"class="counts""#))
        #expect(headline.lowerBound < others.lowerBound, "the headline figures come first")
        #expect(Self.element("count-cancelled", in: page) == "1")
        #expect(page.contains(#"id="no-tickets""#))
    }

    @Test("a running job is shown as running, with its reach, for the script to move on")
    func eventPageJob() {
        var page = EventPage(details: Self.details(Self.event()), tickets: TicketList(tickets: [], nextCursor: nil), visitor: Self.admin)
        #expect(!page.render().markup.contains(#"id="job""#), "no job, no panel")
        page.job = Self.job(state: .running)
        let markup = page.render().markup
        #expect(markup.contains(#"data-job="job7""#))
        #expect(Self.element("job-state", in: markup) == "running")
        #expect(Self.element("job-done", in: markup) == "12")
        #expect(Self.element("job-total", in: markup) == "40")
        #expect(Self.element("job-pending", in: markup) == "4")
        #expect(markup.contains("dashboard.js"), "the script that moves the job on is on the page")
    }

    @Test("an admin gets the forms, a viewer only reads")
    func eventPageRoles() {
        let tickets = TicketList(tickets: [Ticket(pass: Self.pass(), email: nil)], nextCursor: "42")
        var page = EventPage(details: Self.details(Self.event()), tickets: tickets, visitor: Self.admin, mailEnabled: true)
        let admin = page.render().markup
        for form in ["/admin/events/ev1/tickets", "/admin/events/ev1/import", "/admin/events/ev1/archive", "/admin/events/ev1/email", "/admin/tickets/S1/email"] {
            #expect(admin.contains(#"action="\#(form)""#), "admin page lacks \(form)")
        }
        #expect(admin.contains(#"value="csrf-admin""#))
        #expect(admin.contains(#"href="/admin/events/ev1?cursor=42""#), "the next page keeps the filters in its link")
        page.visitor = Self.viewer
        let viewer = page.render().markup
        #expect(!viewer.contains(#"method="post" action="/admin/events"#), "a viewer sees no event form")
        #expect(!viewer.contains("/admin/tickets/S1/email"))
        #expect(viewer.contains(#"<a href="/admin/tickets/S1">Ana Sousa</a>"#), "a viewer still sees the tickets")
        #expect(viewer.contains(#"<form method="post" action="/admin/sign-out""#), "signing out is the one form a viewer has")
    }

    @Test("a refused issue form shows each issue under its field and says nothing was saved")
    func eventPageRefusal() throws {
        let refused = try #require(
            FormState(values: ["attendeeName": "", "seat": "Z9"]).refused(.invalid([OrganizerError.Issue("attendeeName", "is required")]))
        )
        let page = EventPage(
            details: Self.details(Self.event()), tickets: TicketList(tickets: [], nextCursor: nil), visitor: Self.admin, issuing: refused
        ).render().markup
        #expect(Self.element("f-attendeeName-error", in: page) == "is required")
        #expect(page.contains(#"aria-invalid="true""#))
        #expect(page.contains(#"value="Z9""#), "the typed values are kept")
        #expect(page.contains("Nothing was saved: check the field marked below."))
        #expect(page.contains("<details open>"), "the refused form is unfolded")
    }

    @Test("times are shown in the event's zone, named")
    func times() throws {
        let event = Self.event()
        let eventPage = EventPage(details: Self.details(event), tickets: TicketList(tickets: [], nextCursor: nil), visitor: Self.admin).render().markup
        #expect(eventPage.contains("2027-03-01 19:00 (Asia/Tokyo)"))
        let berlin = Self.event(timeZone: "Europe/Berlin")
        let list = EventsPage(list: EventList(events: [Self.details(berlin)], nextCursor: nil), visitor: Self.admin).render().markup
        #expect(list.contains("2027-03-01 11:00 <span class=\"muted\">(Europe/Berlin)</span>"))
        let scanner = ScannerPage(events: [event], visitor: Self.admin).render().markup
        #expect(scanner.contains("Spring Gala · 2027-03-01 19:00 (Asia/Tokyo)"))
        #expect(scanner.contains(#"data-zones="ev1=Asia/Tokyo""#))
        let ticket = TicketPage(
            details: TicketDetails(ticket: Ticket(pass: Self.pass(), email: nil), devices: [], pushes: [], prunes: []), event: event,
            visitor: Self.admin
        ).render().markup
        #expect(ticket.contains("2027-03-01 19:00 (Asia/Tokyo) · Hall A"))
    }

    static let passJSON = #"""
        {"formatVersion": 1, "passTypeIdentifier": "pass.com.example.tickets", "serialNumber": "S1", "teamIdentifier": "TEAM123456",
         "organizationName": "Example", "description": "Ticket", "logoText": "Spring Gala", "backgroundColor": "rgb(10, 20, 30)",
         "foregroundColor": "rgb(255, 255, 255)", "barcodes": [{"format": "PKBarcodeFormatQR", "message": "S1~x", "messageEncoding": "iso-8859-1", "altText": "S1"}],
         "eventTicket": {"primaryFields": [{"key": "name", "label": "ATTENDEE", "value": "Ana Sousa"}],
                         "secondaryFields": [{"key": "seat", "label": "SEAT", "value": "A-12"}],
                         "backFields": [{"key": "terms", "label": "Terms", "value": "No re-entry"}]}}
        """#

    @Test("the ticket page: the pass front and the link on the left, the holder form on the right; a viewer gets neither link nor form")
    func ticketPage() throws {
        let definition = try PassDefinition.decode(Array(Self.passJSON.utf8))
        let device = RegisteredDevice(
            deviceLibraryIdentifier: "device0001", registeredAt: Self.startsAt, toldRevision: 3, toldAt: Self.startsAt,
            upToDate: true
        )
        let push = PushLogEntry(
            tokenHash: "ab", passTypeIdentifier: "pass.com.example.tickets", status: 200, latencyMilliseconds: 9,
            createdAt: Self.startsAt, outcome: "delivered"
        )
        var page = TicketPage(
            details: TicketDetails(ticket: Ticket(pass: Self.pass(), email: nil), devices: [device], pushes: [push], prunes: []), event: Self.event(),
            preview: .init(definition: definition, strings: [:]), downloadURL: "https://tickets.example.com/p/S1?t=abc", visitor: Self.admin
        )
        let admin = page.render().markup
        let left = try #require(admin.range(of: #"class="ticket-pass""#))
        let right = try #require(admin.range(of: #"class="ticket-side""#))
        let front = try #require(admin.range(of: #"class="pass-front""#))
        let holder = try #require(admin.range(of: #"action="/admin/tickets/S1" class="stack""#))
        #expect(left.lowerBound < front.lowerBound && front.lowerBound < right.lowerBound, "the pass is in the left column")
        #expect(right.lowerBound < holder.lowerBound, "the holder form is in the right column")
        #expect(admin.contains(#"fill="rgb(10, 20, 30)""#), "the preview wears the pass's background")
        #expect(admin.contains("No re-entry"), "back fields are listed")
        #expect(admin.contains(#"href="https://tickets.example.com/p/S1?t=abc""#))
        #expect(admin.contains(#"id="download-qr""#))
        #expect(admin.contains(#"value="Ana Sousa""#), "the holder form holds the stored name")
        #expect(admin.contains(#"id="devices""#) && admin.contains("up to date") && admin.contains("delivered"))
        page.visitor = Self.viewer
        page.downloadURL = nil
        let viewer = page.render().markup
        #expect(!viewer.contains("download-link") && !viewer.contains(#"action="/admin/tickets/S1""#))
        #expect(viewer.contains(#"class="pass-front""#), "a viewer still sees the pass")
    }

    @Test("a cancelled ticket shows its reason and offers no holder form")
    func cancelledTicket() {
        var pass = Self.pass()
        pass.status = .cancelled
        pass.cancellationReason = "Refunded"
        let page = TicketPage(
            details: TicketDetails(ticket: Ticket(pass: pass, email: nil), devices: [], pushes: [], prunes: []), event: Self.event(), visitor: Self.admin
        ).render().markup
        #expect(Self.element("ticket-status", in: page) == "cancelled")
        #expect(Self.element("void-reason", in: page) == "Refunded")
        #expect(!page.contains(#"action="/admin/tickets/S1/cancel""#))
        #expect(page.contains("The pass cannot be built as it is stored."), "without a preview the page says so")
    }

    @Test("every page with hostile values in every field a person can type", arguments: HostilePageTests.values)
    func hostile(value: String) throws {
        let event = Self.event(name: value, venue: value, timeZone: value, id: value)
        var pass = Self.pass(name: value, seat: value, email: value, serial: "S1")
        pass.cancellationReason = value
        pass.extra = ["tier": .string(value)]
        let fields = [TemplateField(name: "tier", kind: .string(maxLength: 64, multiline: false))]
        let form = FormState(values: Dictionary(uniqueKeysWithValues: ["name", "venue", "startsAt", "timeZone", "attendeeName", "seat", "reason", "extra.tier"].map { ($0, value) }))
            .refused(.invalid([OrganizerError.Issue("name", value), OrganizerError.Issue("elsewhere", value)]))
        var definitionJSON = Self.passJSON.replacingOccurrences(of: "Ana Sousa", with: "%@").replacingOccurrences(of: "No re-entry", with: "%@")
        definitionJSON = definitionJSON.replacingOccurrences(of: "rgb(10, 20, 30)", with: "rgb(1, 2, 3)")
        let definition = try PassDefinition.decode(Array(definitionJSON.utf8))
        let email = TicketEmail(
            passID: 1, eventID: nil, jobID: nil, state: .failed, queuedAt: Self.startsAt, sentAt: nil, failedAt: Self.startsAt, reply: value, sentCount: 0,
            updatedAt: Self.startsAt
        )
        let push = PushLogEntry(
            tokenHash: value, passTypeIdentifier: "pass.com.example.tickets", status: 410, reason: value, latencyMilliseconds: 1,
            createdAt: Self.startsAt, outcome: value
        )
        let details = TicketDetails(ticket: Ticket(pass: pass, email: email), devices: [], pushes: [push], prunes: [])
        let check = TicketImportCheck(
            rows: [TicketImport.Row(number: 2, object: ["attendeeName": .string(value), "attendeeEmail": .string(value), "seat": .string(value)], problem: nil)],
            tickets: [], problems: [RowIssue(row: 2, field: value, message: value)]
        )
        let visitor = DashboardSessions.Visitor(sessionIDHash: [], tokenName: value, role: .admin, csrfToken: "t")
        let found = TemplateSummary.Field(key: value, label: value, value: value, area: "primary")
        let uploaded = TemplateSummary(
            name: value, origin: .uploaded, fields: [found], extraFields: [value], mapping: [value: .extra(value)], notes: [value], updatedAt: Self.startsAt
        )
        let folder = TemplateSummary(name: value, origin: .file, fields: [found], problem: value)
        let templateForm = FormState(values: ["name": value, "mapping." + value: value])
            .refused(.invalid([OrganizerError.Issue("name", value), OrganizerError.Issue("archive", value), OrganizerError.Issue("mapping." + value, value)]))
        let pages: [(String, HTML)] = [
            ("templates", TemplatesPage(templates: [uploaded, folder], visitor: visitor, form: templateForm ?? FormState(), notice: .init(text: value)).render()),
            ("uploaded template", TemplatePage(template: uploaded, visitor: visitor, form: templateForm, notice: .init(text: value)).render()),
            ("folder template", TemplatePage(template: folder, visitor: visitor).render()),
            ("events", EventsPage(list: EventList(events: [Self.details(event)], nextCursor: value), search: value, when: value, visitor: visitor, notice: .init(text: value)).render()),
            ("new event", EventFormPage(form: form ?? FormState(), templateNames: [value], visitor: visitor).render()),
            ("edit event", EventFormPage(editing: (event, 2), form: form ?? FormState(), templateNames: [value], visitor: visitor).render()),
            ("event", EventPage(
                details: Self.details(event), tickets: TicketList(tickets: [Ticket(pass: pass, email: email)], nextCursor: value), search: value, status: value,
                job: Self.job(state: .running), visitor: visitor, templateFields: fields, mailEnabled: true, issuing: form ?? FormState(), notice: .init(text: value)
            ).render()),
            ("ticket", TicketPage(
                details: details, event: event, preview: .init(definition: definition, strings: ["ATTENDEE": value, "%@": value]), downloadURL: value, visitor: visitor,
                templateFields: fields, mailEnabled: true, holder: form, notice: .init(text: value)
            ).render()),
            ("active ticket", TicketPage(
                details: TicketDetails(ticket: Ticket(pass: Self.pass(name: value, seat: value, email: value), email: nil), devices: [], pushes: [], prunes: []),
                event: event, downloadURL: "https://example.com/" + value, visitor: visitor, templateFields: fields, mailEnabled: true, cancelling: form
            ).render()),
            ("import", ImportPage(event: event, visitor: visitor, templateFields: fields, mailEnabled: true, csv: value, check: check, error: value).render()),
            ("scanner", ScannerPage(events: [event], selected: value, visitor: visitor, notice: .init(text: value)).render()),
            ("sign-in", SignInPage(challenge: value, notice: .init(text: value, isError: true)).render()),
            ("error", ErrorPage(status: 400, message: value, visitor: visitor).render()),
        ]
        let escaped: String = switch value {
        case HostilePageTests.script: "&lt;script&gt;alert(1)&lt;/script&gt;"
        case HostilePageTests.image: "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"
        case HostilePageTests.bidi: "&#x202E;gnp.exe"
        default: value
        }
        for (name, page) in pages {
            let markup = page.markup
            HostilePageTests.expectEscaped(markup, "\(name) page with \(value)")
            // The value is on the page, escaped: a page that dropped it would pass the check above.
            #expect(markup.contains(escaped), "\(name) page does not show \(value)")
        }
    }
}

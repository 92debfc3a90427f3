import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// A form the organizer refuses comes back with what was typed and each problem under its own
/// field (`aria-invalid`, `aria-describedby`), and nothing is stored.
@Suite("Dashboard: refused forms show each issue next to its field", .offCooperativePool, .timeLimit(.minutes(3)))
struct DashboardFormRefusalTests {
    /// The markup from the input (or select) of `field` up to the next label: the field and what
    /// is shown under it.
    static func field(_ name: String, in page: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let id = DashboardLayout.fieldID(name)
        let start = try #require(page.range(of: #"id="\#(id)""#), "no input \(id)", sourceLocation: sourceLocation)
        let rest = page[start.lowerBound...]
        let end = rest.range(of: "<label")?.lowerBound ?? rest.range(of: "</form>")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// Whether `field`'s markup marks it invalid and shows `message` under it.
    static func expectIssue(_ field: String, _ message: String, in page: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let markup = try Self.field(field, in: page, sourceLocation: sourceLocation)
        let id = DashboardLayout.fieldID(field)
        #expect(markup.contains(#"aria-invalid="true""#), "\(field) not marked invalid: \(markup)", sourceLocation: sourceLocation)
        #expect(markup.contains(#"aria-describedby="\#(id)-error""#) || markup.contains(#"\#(id)-error""#), sourceLocation: sourceLocation)
        #expect(markup.contains(#"<p class="field-error" id="\#(id)-error">\#(message)</p>"#), "\(field): \(markup)", sourceLocation: sourceLocation)
    }

    @Test("new event, ticket and holder forms: 400 with every issue under its field, the values kept, nothing stored", arguments: Backend.allCases)
    func refusedForms(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let (client, _) = try DashboardClient.signIn(app, token: app.adminToken)

        let csrf = try client.csrf(on: "/admin/events/new")
        let refused = try client.post(
            "/admin/events", [("name", ""), ("venue", "Hall <B>"), ("startsAt", "2027-03-01T19:00"), ("endsAt", "2027-03-01T18:00"), ("timeZone", "Mars/Base")],
            csrf: csrf
        )
        #expect(refused.status == 400)
        try Self.expectIssue("name", "is required", in: refused.text)
        try Self.expectIssue("timeZone", "&#39;Mars/Base&#39; is not an IANA time zone identifier (e.g. Europe/Berlin)", in: refused.text)
        #expect(try Self.field("venue", in: refused.text).contains(#"value="Hall &lt;B&gt;""#), "the typed value is kept")
        #expect(!(try Self.field("venue", in: refused.text)).contains("aria-invalid"), "a valid field is not marked")
        #expect(!(try Self.field("startsAt", in: refused.text)).contains("field-error"))
        #expect(refused.text.contains("Nothing was saved"))
        let events = try app.admin("GET", "/admin/v1/events").jsonObject?["events"] as? [Any]
        #expect(events?.isEmpty == true, "no event was created")

        let ends = try client.post(
            "/admin/events", [("name", "Night"), ("venue", "Hall"), ("startsAt", "2027-03-01T19:00"), ("endsAt", "2027-03-01T18:00"), ("timeZone", "Asia/Tokyo")],
            csrf: csrf
        )
        #expect(ends.status == 400)
        try Self.expectIssue("endsAt", "must not be before startsAt", in: ends.text)

        let event = try OrganizerSupport.createEvent(app, template: "noted-ticket")
        let issued = try client.post(
            "/admin/events/\(event)/tickets", [("attendeeName", "Ada"), ("attendeeEmail", "not an address"), ("extra.table", "99")], csrf: csrf
        )
        #expect(issued.status == 400)
        try Self.expectIssue("attendeeEmail", "is not an email address", in: issued.text)
        try Self.expectIssue("extra.table", "must be 1 to 40", in: issued.text)
        #expect(try Self.field("attendeeName", in: issued.text).contains(#"value="Ada""#))
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 0)

        let serial = try app.issueTicket(event: event)
        let holder = try client.post("/admin/tickets/\(serial)", [("attendeeName", "Ada"), ("seat", String(repeating: "s", count: 65))], csrf: csrf)
        #expect(holder.status == 400)
        try Self.expectIssue("seat", "must be at most 64 characters (Unicode scalars)", in: holder.text)
        let stored = try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject
        #expect(stored?["seat"] as? String == "A1", "the seat is unchanged")

        let cancel = try client.post("/admin/tickets/\(serial)/cancel", [("confirm", "yes"), ("reason", "bad\u{1}reason")], csrf: csrf)
        #expect(cancel.status == 400)
        try Self.expectIssue("reason", "must not contain control characters", in: cancel.text)
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["status"] as? String == "active")
    }
}

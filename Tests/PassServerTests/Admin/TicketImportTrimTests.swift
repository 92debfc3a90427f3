import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// A CSV import trims each cell's leading and trailing white space, line breaks included (a
/// spreadsheet leaves a newline inside a quoted name), and still refuses control characters inside
/// a name; through the admin API and the dashboard's import form.
@Suite("Ticket import: cells trimmed", .offCooperativePool, .timeLimit(.minutes(3)))
struct TicketImportTrimTests {
    /// Names as a spreadsheet may leave them, with what must be stored.
    static let untidy: [(cell: String, stored: String)] = [
        ("\"Ada Lovelace\n\"", "Ada Lovelace"),
        ("\"\r\n  Bob Tanaka \r\n\"", "Bob Tanaka"),
        ("\"\tChloé Martin\u{3000}\"", "Chloé Martin"),
    ]

    @Test("the API's CSV upload stores names and seats without surrounding white space or line breaks", arguments: Backend.allCases)
    func api(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        var csv = "attendeeName,seat\r\n"
        for (index, name) in Self.untidy.enumerated() { csv += "\(name.cell),\" S\(index)\n\"\r\n" }
        let response = try OrganizerSupport.upload(app, event: event, body: Array(csv.utf8))
        #expect(response.status == 200, "\(response.text.prefix(800))")
        let entries = try #require(response.jsonObject?["tickets"] as? [[String: Any]])
        #expect(entries.count == Self.untidy.count)
        for (index, entry) in entries.enumerated() {
            let serial = try #require(entry["serialNumber"] as? String)
            let ticket = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
            #expect(ticket["attendeeName"] as? String == Self.untidy[index].stored)
            #expect(ticket["seat"] as? String == "S\(index)")
        }
    }

    @Test("a line break or another control character inside a name is still refused, and nothing is issued", arguments: Backend.allCases)
    func controlsInside(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let csv = "attendeeName\r\n\"Dave\nJones\"\r\n\"Eve\u{7}\"\r\n\" \n \"\r\nFine Name\r\n"
        let response = try OrganizerSupport.upload(app, event: event, body: Array(csv.utf8))
        #expect(response.status == 400)
        let error = try #require(OrganizerSupport.error(response))
        #expect(error["code"] as? String == "invalid_rows")
        let problems = try #require(error["problems"] as? [[String: Any]])
        let flat = problems.map { "\($0["row"] as? Int ?? -1) \($0["field"] as? String ?? "-") \($0["problem"] as? String ?? "")" }
        #expect(flat == [
            "2 attendeeName must not contain control characters",
            "3 attendeeName must not contain control characters",
            // Only white space: an empty cell, so an absent name.
            "4 attendeeName is required",
        ])
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 0)
    }

    @Test("the dashboard's import accepts a name with a trailing newline inside its quotes", arguments: Backend.allCases)
    func dashboard(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let (client, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let csrf = try client.csrf(on: "/admin/events/\(event)")
        let csv = "attendeeName,seat\n\"Ada Lovelace\n\",A1\n"
        // Issuing shows the form again (200) when a row is invalid, and redirects when all are issued.
        let issued = try client.post("/admin/events/\(event)/import", [("csv", csv), ("step", "issue")], csrf: csrf)
        #expect(issued.status == 303, "\(issued.text.prefix(3_000))")
        let list = try #require(try app.admin("GET", "/admin/v1/events/\(event)/tickets").jsonObject?["tickets"] as? [[String: Any]])
        #expect(list.map { $0["attendeeName"] as? String } == ["Ada Lovelace"])
    }
}

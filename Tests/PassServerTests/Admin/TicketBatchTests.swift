import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// `POST /admin/v1/events/{id}/tickets:batch` over real HTTP: 10,000 rows, idempotent re-uploads,
/// all-or-nothing with every invalid row reported.
@Suite("Admin API: tickets in bulk", .offCooperativePool, .timeLimit(.minutes(10)))
struct TicketBatchTests {
    struct Attendee {
        var name: String
        var email: String?
        var seat: String?
        var externalID: String?
        var ticketType: String?
        var gate: String?
        var note: String?
        var table: String?
    }

    /// Names with quotes, commas and Japanese; notes with commas, quotes and a line break.
    static func attendees(_ count: Int, from start: Int = 0) -> [Attendee] {
        (start..<(start + count)).map { index in
            let names = ["山田 太郎 \(index)", "O'Brien, \"Bob\" \(index)", "Ada Lovelace \(index)", "Zoë, Ünal \(index)"]
            return Attendee(
                name: names[index % 4],
                email: index % 3 == 0 ? "user\(index)@example.com" : nil,
                seat: index % 5 == 0 ? "R\(index / 100)-\(index % 100)" : nil,
                externalID: "EXT-\(index)",
                ticketType: index % 2 == 0 ? ["General", "VIP", "Student", "Staff"][(index / 2) % 4] : nil,
                gate: index % 7 == 0 ? "North \(index % 3)" : nil,
                note: "Dietary: none, \"vegan\" maybe\r\nArrives late; seat near the aisle please (row \(index))",
                table: index % 2 == 1 ? String(index % 40 + 1) : nil
            )
        }
    }

    static let header = ["note", "externalId", "attendeeName", "table", "attendeeEmail", "seat", "gate", "ticketType"]

    /// A spreadsheet's export: byte order mark, CRLF, columns in its own order.
    static func csv(_ attendees: [Attendee]) -> [UInt8] {
        var text = "\u{FEFF}" + header.joined(separator: ",") + "\r\n"
        for attendee in attendees {
            let cells = [attendee.note, attendee.externalID, attendee.name, attendee.table, attendee.email, attendee.seat, attendee.gate, attendee.ticketType]
            text += cells.map { OrganizerSupport.csvField($0 ?? "") }.joined(separator: ",") + "\r\n"
        }
        return Array(text.utf8)
    }

    @Test("10,000 CSV rows become 10,000 tickets; the same file again issues none; its export imports again; three broken rows are listed and stop everything", arguments: Backend.allCases)
    func csvOfTenThousandRows(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let event = try OrganizerSupport.createEvent(app, template: "noted-ticket")
        let attendees = Self.attendees(10_000)
        let file = Self.csv(attendees)
        #expect(file.count > 1 << 20, "larger than the server's default body limit")

        let first = try OrganizerSupport.upload(app, event: event, body: file)
        #expect(first.status == 200, "\(first.text.prefix(500))")
        let body = try #require(first.jsonObject)
        #expect(body["created"] as? Int == 10_000)
        #expect(body["existing"] as? Int == 0)
        let entries = try #require(body["tickets"] as? [[String: Any]])
        try #require(entries.count == 10_000)
        #expect(entries.map { $0["row"] as? Int ?? -1 } == Array(2...10_001), "rows numbered as a spreadsheet shows them")
        #expect(entries.allSatisfy { $0["outcome"] as? String == "created" })
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 10_000)

        // A few tickets read back one by one.
        for index in [0, 1, 2, 3, 4_999, 9_999] {
            let serial = try #require(entries[index]["serialNumber"] as? String)
            #expect(entries[index]["externalId"] as? String == attendees[index].externalID)
            #expect(entries[index]["attendeeName"] as? String == attendees[index].name)
            #expect(entries[index]["status"] as? String == "active")
            let ticket = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
            #expect(entries[index]["downloadURL"] as? String == ticket["downloadURL"] as? String, "the entry gives the ticket's own link")
            let attendee = attendees[index]
            #expect(ticket["attendeeName"] as? String == attendee.name)
            #expect(ticket["attendeeEmail"] as? String == attendee.email)
            #expect(ticket["seat"] as? String == attendee.seat)
            #expect(ticket["externalId"] as? String == attendee.externalID)
            let extra = try #require(ticket["extra"] as? [String: Any])
            #expect(extra["note"] as? String == attendee.note?.replacingOccurrences(of: "\r\n", with: "\n"), "line breaks are kept, as LF")
            #expect(extra["ticketType"] as? String == attendee.ticketType)
            #expect(extra["gate"] as? String == attendee.gate)
            #expect(extra["table"] as? Int == attendee.table.flatMap { Int($0) })
            #expect((ticket["downloadURL"] as? String)?.hasPrefix("https://passes.example.test/download/") == true)
        }

        // The same file again: every row exists; the same tickets come back.
        let again = try OrganizerSupport.upload(app, event: event, body: file)
        #expect(again.status == 200)
        #expect(again.jsonObject?["created"] as? Int == 0)
        #expect(again.jsonObject?["existing"] as? Int == 10_000)
        let againEntries = try #require(again.jsonObject?["tickets"] as? [[String: Any]])
        try #require(againEntries.count == 10_000)
        for index in [0, 5_000, 9_999] {
            #expect(againEntries[index]["serialNumber"] as? String == entries[index]["serialNumber"] as? String)
            #expect(againEntries[index]["downloadURL"] as? String == entries[index]["downloadURL"] as? String)
            #expect(againEntries[index]["outcome"] as? String == "existing")
        }
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 10_000)

        try Self.exportRoundTrips(app, event: event, attendees: attendees)

        // Three broken rows, and five rows that would be new: a 400 naming exactly those three, and nothing issued.
        var broken = attendees
        for index in 10..<15 { broken[index].externalID = "NEW-\(index)" }
        broken[99].email = "not-an-email"
        broken[4_999].ticketType = "Gold"
        broken[9_999].table = "forty"
        let refused = try OrganizerSupport.upload(app, event: event, body: Self.csv(broken))
        #expect(refused.status == 400)
        let error = try #require(OrganizerSupport.error(refused))
        #expect(error["code"] as? String == "invalid_rows")
        let problems = try #require(error["problems"] as? [[String: Any]])
        #expect(problems.map { $0["row"] as? Int ?? -1 } == [101, 5_001, 10_001])
        #expect(problems.map { $0["field"] as? String ?? "" } == ["attendeeEmail", "ticketType", "table"])
        #expect(problems.allSatisfy { !($0["problem"] as? String ?? "").isEmpty })
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 10_000)

        let fresh = try OrganizerSupport.createEvent(app, name: "Fresh", template: "noted-ticket")
        #expect(try OrganizerSupport.upload(app, event: fresh, body: Self.csv(broken)).status == 400)
        #expect(try OrganizerSupport.ticketCount(app, event: fresh) == 0, "all or nothing on an empty event too")
    }

    /// The event's CSV export uploads as it is: into the same event it issues nothing, into
    /// another it issues the same tickets, whose own export holds the same imported columns.
    static func exportRoundTrips(_ app: TestApp, event: String, attendees: [Attendee], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let exported = try TestClient(port: app.port, timeout: 120).request(
            "GET", "/admin/v1/events/\(event)/tickets.csv", headers: [("Authorization", "Bearer \(app.adminToken)")]
        )
        #expect(exported.status == 200, sourceLocation: sourceLocation)
        let records = try CSV.records(exported.body).map(\.fields)
        let header = try #require(records.first, sourceLocation: sourceLocation)
        let imported = TicketImport.columns + ["ticketType", "gate", "note", "table"]
        #expect(Array(header.prefix(imported.count)) == imported, sourceLocation: sourceLocation)
        #expect(records.count == attendees.count + 1, sourceLocation: sourceLocation)
        // What the export says of each attendee, in issue order, is what the upload held.
        for (attendee, record) in zip(attendees, records.dropFirst()) {
            let cells = record.prefix(imported.count).map(CSV.removingFormulaGuard)
            let expected = [
                attendee.name, attendee.email, attendee.seat, attendee.externalID, nil, nil, nil, nil, attendee.ticketType, attendee.gate,
                attendee.note?.replacingOccurrences(of: "\r\n", with: "\n"), attendee.table,
            ].map { $0 ?? "" }
            #expect(cells == expected, sourceLocation: sourceLocation)
        }

        let again = try OrganizerSupport.upload(app, event: event, body: exported.body)
        #expect(again.status == 200, "\(again.text.prefix(500))", sourceLocation: sourceLocation)
        #expect(again.jsonObject?["created"] as? Int == 0, sourceLocation: sourceLocation)
        #expect(again.jsonObject?["existing"] as? Int == attendees.count, sourceLocation: sourceLocation)

        let copy = try OrganizerSupport.createEvent(app, name: "Copy", template: "noted-ticket")
        let copied = try OrganizerSupport.upload(app, event: copy, body: exported.body)
        #expect(copied.status == 200, "\(copied.text.prefix(500))", sourceLocation: sourceLocation)
        #expect(copied.jsonObject?["created"] as? Int == attendees.count, sourceLocation: sourceLocation)
        let copyExport = try TestClient(port: app.port, timeout: 120).request(
            "GET", "/admin/v1/events/\(copy)/tickets.csv", headers: [("Authorization", "Bearer \(app.adminToken)")]
        )
        let copyRecords = try CSV.records(copyExport.body).map(\.fields)
        #expect(copyRecords.map { Array($0.prefix(imported.count)) } == records.map { Array($0.prefix(imported.count)) }, sourceLocation: sourceLocation)
        let serial = try #require(header.firstIndex(of: "serialNumber"), sourceLocation: sourceLocation)
        let serials = Set(records.dropFirst().map { $0[serial] })
        #expect(serials.count == attendees.count, sourceLocation: sourceLocation)
        #expect(serials.isDisjoint(with: copyRecords.dropFirst().map { $0[serial] }), "new tickets, new serial numbers", sourceLocation: sourceLocation)
    }
}

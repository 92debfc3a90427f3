import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// The JSON form of `tickets:batch`, idempotency by `externalId`, and the refusals of both forms.
@Suite("Admin API: tickets in bulk, JSON and refusals", .offCooperativePool, .timeLimit(.minutes(10)))
struct TicketBatchJSONTests {
    static func json(_ attendees: [TicketBatchTests.Attendee]) throws -> [UInt8] {
        let rows: [[String: Any]] = attendees.map { attendee in
            var row: [String: Any] = ["attendeeName": attendee.name]
            row["attendeeEmail"] = attendee.email
            row["seat"] = attendee.seat
            row["externalId"] = attendee.externalID
            var extra: [String: Any] = [:]
            extra["ticketType"] = attendee.ticketType
            extra["gate"] = attendee.gate
            extra["note"] = attendee.note
            extra["table"] = attendee.table.map { Int($0) ?? -1 }
            if !extra.isEmpty { row["extra"] = extra }
            return row
        }
        return Array(try JSONSerialization.data(withJSONObject: rows))
    }

    @Test("a JSON array of 10,000 becomes 10,000 tickets; again none; three invalid elements are listed by index", arguments: Backend.allCases)
    func jsonOfTenThousand(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let event = try OrganizerSupport.createEvent(app, template: "noted-ticket")
        let attendees = TicketBatchTests.attendees(10_000)
        let body = try Self.json(attendees)
        let first = try OrganizerSupport.upload(app, event: event, body: body, contentType: "application/json")
        #expect(first.status == 200, "\(first.text.prefix(500))")
        #expect(first.jsonObject?["created"] as? Int == 10_000)
        let entries = try #require(first.jsonObject?["tickets"] as? [[String: Any]])
        #expect(entries.map { $0["row"] as? Int ?? -1 } == Array(0..<10_000), "JSON rows are array indexes")
        let serial = try #require(entries[1]["serialNumber"] as? String)
        let ticket = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        #expect(ticket["attendeeName"] as? String == attendees[1].name)
        #expect((ticket["extra"] as? [String: Any])?["table"] as? Int == 2)
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 10_000)

        let again = try OrganizerSupport.upload(app, event: event, body: body, contentType: "application/json")
        #expect(again.jsonObject?["created"] as? Int == 0)
        #expect(again.jsonObject?["existing"] as? Int == 10_000)

        var broken = attendees
        for index in 10..<15 { broken[index].externalID = "NEW-\(index)" }
        broken[99].email = "not-an-email"
        broken[4_999].ticketType = "Gold"
        broken[9_999].table = "99"
        let refused = try OrganizerSupport.upload(app, event: event, body: try Self.json(broken), contentType: "application/json")
        #expect(refused.status == 400)
        let problems = try #require(OrganizerSupport.error(refused)?["problems"] as? [[String: Any]])
        #expect(problems.map { $0["row"] as? Int ?? -1 } == [99, 4_999, 9_999])
        #expect(problems.map { $0["field"] as? String ?? "" } == ["attendeeEmail", "extra.ticketType", "extra.table"])
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 10_000)
    }

    @Test("externalId makes single and batch issuing idempotent", arguments: Backend.allCases)
    func idempotency(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let event = try OrganizerSupport.createEvent(app)
        let single = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Ada","externalId":"A-1"}"#)
        #expect(single.status == 201)
        let serial = try #require(single.jsonObject?["serialNumber"] as? String)
        #expect(single.jsonObject?["externalId"] as? String == "A-1")
        let retried = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Someone else","externalId":"A-1"}"#)
        #expect(retried.status == 200, "an existing external id returns that ticket")
        #expect(retried.jsonObject?["serialNumber"] as? String == serial)
        #expect(retried.jsonObject?["attendeeName"] as? String == "Ada", "unchanged")

        let batch = #"[{"attendeeName":"Ada again","externalId":"A-1"},{"attendeeName":"Bo","externalId":"A-2","extra":{"gate":"N1","ticketType":"VIP"}},{"attendeeName":"Cy"}]"#
        let imported = try OrganizerSupport.upload(app, event: event, body: Array(batch.utf8), contentType: "application/json")
        #expect(imported.status == 200)
        #expect(imported.jsonObject?["created"] as? Int == 2)
        #expect(imported.jsonObject?["existing"] as? Int == 1)
        let entries = try #require(imported.jsonObject?["tickets"] as? [[String: Any]])
        #expect(entries.map { $0["outcome"] as? String ?? "" } == ["existing", "created", "created"])
        #expect(entries[0]["serialNumber"] as? String == serial)
        #expect(entries[0]["attendeeName"] as? String == "Ada", "the existing ticket, unchanged")
        let reimported = try OrganizerSupport.upload(app, event: event, body: Array(batch.utf8), contentType: "application/json")
        #expect(reimported.jsonObject?["created"] as? Int == 1, "a row without externalId is issued again")
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 4)

        // Another event may use the same external id; within one event a change to a taken one is refused.
        let other = try OrganizerSupport.createEvent(app, name: "Other")
        #expect(try app.admin("POST", "/admin/v1/events/\(other)/tickets", json: #"{"attendeeName":"Ada","externalId":"A-1"}"#).status == 201)
        let bo = try #require(entries[1]["serialNumber"] as? String)
        let taken = try app.admin("PATCH", "/admin/v1/tickets/\(bo)", json: #"{"externalId":"A-1"}"#)
        #expect(taken.status == 409)
        #expect(taken.errorCode == "external_id_exists")
        let moved = try app.admin("PATCH", "/admin/v1/tickets/\(bo)", json: #"{"externalId":"B-9"}"#)
        #expect(moved.jsonObject?["externalId"] as? String == "B-9")
        let cleared = try app.admin("PATCH", "/admin/v1/tickets/\(bo)", json: #"{"externalId":null}"#)
        #expect(cleared.status == 200)
        #expect(cleared.jsonObject?["externalId"] == nil)
    }

    @Test("invalid JSON elements are all listed, by index and field", arguments: Backend.allCases)
    func invalidElements(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let event = try OrganizerSupport.createEvent(app)
        let body = #"[{"attendeeName":" "},"text",{"attendeeName":"ok","extra":{"gate":5,"colour":"red"}},{"attendeeName":"a","externalId":"D"},{"attendeeName":"b","externalId":"D"},{"attendeeName":"fine"}]"#
        let response = try OrganizerSupport.upload(app, event: event, body: Array(body.utf8), contentType: "application/json")
        #expect(response.status == 400)
        let error = try #require(OrganizerSupport.error(response))
        #expect(error["code"] as? String == "invalid_rows")
        #expect(error["message"] as? String == "4 rows are invalid; no ticket was issued.")
        let problems = try #require(error["problems"] as? [[String: Any]])
        let flat = problems.map { "\($0["row"] as? Int ?? -1) \($0["field"] as? String ?? "-") \($0["problem"] as? String ?? "")" }
        #expect(flat == [
            "0 attendeeName must not be empty",
            "1 - must be an object",
            "2 extra.colour unknown field",
            "2 extra.gate must be a string",
            "4 externalId repeats the externalId of row 3",
        ])
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 0)
    }

    @Test("refusals: format, columns, encoding, syntax, size and row count", arguments: Backend.allCases)
    func refusals(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let event = try OrganizerSupport.createEvent(app)
        func upload(_ text: String, _ type: String = "text/csv") throws -> TestResponse {
            try OrganizerSupport.upload(app, event: event, body: Array(text.utf8), contentType: type)
        }
        func check(_ response: TestResponse, _ code: String, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(response.status == 400, sourceLocation: sourceLocation)
            #expect(response.errorCode == code, "\(response.text)", sourceLocation: sourceLocation)
            let message = OrganizerSupport.error(response)?["message"] as? String ?? ""
            #expect(message.contains(fragment), "\(message)", sourceLocation: sourceLocation)
        }
        check(try upload("attendeeName,colour\nAda,red\n"), "invalid_columns", "colour: unknown column")
        check(try upload("attendeeEmail\nada@example.com\n"), "invalid_columns", "attendeeName: the column is required")
        check(try upload("attendeeName,seat,seat\nAda,1,2\n"), "invalid_columns", "seat: appears twice")
        check(try upload("attendeeName\nAda\n\"Bob\nCy\n"), "invalid_csv", "row 3: a quoted field is not closed")
        check(try upload("attendeeName\nA\"da\n"), "invalid_csv", "row 2")
        check(try upload("attendeeName\n"), "no_rows", "no tickets")
        check(try upload("attendeeName\n\n,\n"), "no_rows", "no tickets")
        check(try upload("[]", "application/json"), "no_rows", "no tickets")
        check(try upload("{\"attendeeName\":\"Ada\"}", "application/json"), "malformed_json", "array")
        check(try upload("attendeeName\nAda\n", "text/plain"), "unsupported_content_type", "text/csv")
        check(try upload("attendeeName\nAda\n", "text/csv; charset=iso-8859-1"), "unsupported_content_type", "UTF-8")
        let latin1 = try OrganizerSupport.upload(app, event: event, body: Array("attendeeName\nZo".utf8) + [0xEB, 0x0A], contentType: "text/csv")
        check(latin1, "invalid_csv", "not valid UTF-8")
        let rows = "attendeeName\n" + String(repeating: "A\n", count: 10_001)
        check(try upload(rows), "too_many_rows", "10000")
        let array = "[" + Array(repeating: "{}", count: 10_001).joined(separator: ",") + "]"
        check(try upload(array, "application/json"), "too_many_rows", "10000")
        let cells = try upload("attendeeName,seat\nAda\nBo,1,2\n")
        #expect(cells.status == 400)
        let problems = OrganizerSupport.error(cells)?["problems"] as? [[String: Any]] ?? []
        #expect(problems.map { $0["problem"] as? String ?? "" } == ["has 1 cells, the header has 2", "has 3 cells, the header has 2"])
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 0)

        // Bodies above the route's limit are refused from the headers alone.
        let client = try TestClient(port: app.port, timeout: 10)
        client.send("POST /admin/v1/events/\(event)/tickets:batch HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app.adminToken)\r\nContent-Type: text/csv\r\nContent-Length: \(TicketImport.maxBodySize + 1)\r\nExpect: 100-continue\r\n\r\n")
        let tooLarge = try #require(try client.readResponse())
        #expect(tooLarge.status == 413)
        #expect(try app.admin("POST", "/admin/v1/events/missing/tickets:batch", json: "[]").status == 404)
    }
}

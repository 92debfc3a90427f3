import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// The template's declared extra fields through the admin API and onto the pass.
@Suite("Admin API: template extra fields", .offCooperativePool, .timeLimit(.minutes(4)))
struct TicketExtrasTests {
    static func passJSON(_ app: TestApp, _ ticket: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let download = try app.request("GET", try AdminSupport.path(of: ticket["downloadURL"] as? String))
        #expect(download.status == 200, "\(download.text.prefix(300))", sourceLocation: sourceLocation)
        return try PassArchive.passJSON(download.body)
    }

    @Test("values are accepted, shown and reach pass.json; a change or a null reaches it too", arguments: Backend.allCases)
    func valuesReachThePass(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let event = try OrganizerSupport.createEvent(app)
        let created = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Ada","extra":{"gate":"North 3","ticketType":"VIP"}}"#)
        #expect(created.status == 201)
        var ticket = try #require(created.jsonObject)
        #expect(ticket["extra"] as? [String: String] == ["gate": "North 3", "ticketType": "VIP"])
        var pass = try Self.passJSON(app, ticket)
        #expect(AdminSupport.field("gate", in: pass)?["value"] as? String == "North 3")
        #expect(AdminSupport.field("ticketType", in: pass)?["value"] as? String == "VIP")

        let plain = try #require(try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Bo"}"#).jsonObject)
        #expect(plain["extra"] as? [String: String] == [:])
        let plainPass = try Self.passJSON(app, plain)
        #expect(AdminSupport.field("gate", in: plainPass)?["value"] as? String == "ANY_GATE", "the declared default")
        #expect(AdminSupport.field("ticketType", in: plainPass)?["value"] as? String == "General")

        let serial = try #require(ticket["serialNumber"] as? String)
        let changed = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"extra":{"gate":"South 1"}}"#)
        #expect(changed.status == 200)
        ticket = try #require(changed.jsonObject)
        #expect(ticket["extra"] as? [String: String] == ["gate": "South 1", "ticketType": "VIP"], "fields not named stay")
        #expect((ticket["revision"] as? Int ?? 0) > (created.jsonObject?["revision"] as? Int ?? 0))
        pass = try Self.passJSON(app, ticket)
        #expect(AdminSupport.field("gate", in: pass)?["value"] as? String == "South 1")

        let cleared = try #require(try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"extra":{"ticketType":null}}"#).jsonObject)
        #expect(cleared["extra"] as? [String: String] == ["gate": "South 1"])
        #expect(AdminSupport.field("ticketType", in: try Self.passJSON(app, cleared))?["value"] as? String == "General")
    }

    @Test("wrong types, lengths, values and unknown keys are refused, each named", arguments: Backend.allCases)
    func validation(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let event = try OrganizerSupport.createEvent(app)
        let noted = try OrganizerSupport.createEvent(app, name: "Noted", template: "noted-ticket")
        func refused(_ event: String, _ extra: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let response = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Ada","extra":\#(extra)}"#)
            #expect(response.status == 400, sourceLocation: sourceLocation)
            #expect(response.errorCode == "invalid_fields", sourceLocation: sourceLocation)
            #expect(OrganizerSupport.error(response)?["message"] as? String == expected, sourceLocation: sourceLocation)
        }
        try refused(event, #"{"gate":5}"#, "extra.gate: must be a string")
        try refused(event, #"{"gate":"\#(String(repeating: "x", count: 17))"}"#, "extra.gate: must be at most 16 characters (Unicode scalars)")
        try refused(event, #"{"gate":"a\nb"}"#, "extra.gate: must not contain control characters")
        try refused(event, #"{"colour":"red"}"#, "extra.colour: unknown field")
        try refused(event, #"{"ticketType":"Gold"}"#, "extra.ticketType: must be one of General, VIP, Student, Staff")
        try refused(event, #""VIP""#, "extra: must be an object")
        try refused(noted, #"{"table":"3"}"#, "extra.table: must be a whole number")
        try refused(noted, #"{"table":2.5}"#, "extra.table: must be a whole number")
        try refused(noted, #"{"table":true}"#, "extra.table: must be a whole number")
        try refused(noted, #"{"table":41}"#, "extra.table: must be 1 to 40")
        try refused(noted, #"{"note":"ok\u0007"}"#, "extra.note: must not contain control characters other than line breaks")
        let multiline = try app.admin("POST", "/admin/v1/events/\(noted)/tickets", json: #"{"attendeeName":"Ada","extra":{"note":"two\r\nlines","table":40}}"#)
        #expect(multiline.status == 201)
        #expect((multiline.jsonObject?["extra"] as? [String: Any])?["note"] as? String == "two\nlines")
        #expect((multiline.jsonObject?["extra"] as? [String: Any])?["table"] as? Int == 40)
        let pass = try Self.passJSON(app, try #require(multiline.jsonObject))
        #expect(AdminSupport.field("note", in: pass)?["value"] as? String == "two\nlines")
        #expect(AdminSupport.field("table", in: pass)?["value"] as? String == "40")
    }

    @Test("a required field must be given on creation, as a CSV column, and cannot be cleared", arguments: Backend.allCases)
    func requiredFields(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let event = try OrganizerSupport.createEvent(app, template: "seated-ticket")
        let missing = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Ada"}"#)
        #expect(missing.status == 400)
        #expect(OrganizerSupport.error(missing)?["message"] as? String == "extra.table: is required")
        let header = try OrganizerSupport.upload(app, event: event, body: Array("attendeeName,note\nAda,hi\n".utf8))
        #expect(header.errorCode == "invalid_columns")
        #expect((OrganizerSupport.error(header)?["message"] as? String)?.contains("table: the column is required by the template") == true)
        let emptyCell = try OrganizerSupport.upload(app, event: event, body: Array("attendeeName,table\nAda,\n".utf8))
        #expect((OrganizerSupport.error(emptyCell)?["problems"] as? [[String: Any]])?.first?["field"] as? String == "table")
        let created = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Ada","extra":{"table":7}}"#)
        #expect(created.status == 201)
        let serial = try #require(created.jsonObject?["serialNumber"] as? String)
        let cleared = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"extra":{"table":null}}"#)
        #expect(cleared.status == 400)
        #expect(OrganizerSupport.error(cleared)?["message"] as? String == "extra.table: must not be null")
        let ticket = try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject
        #expect((ticket?["extra"] as? [String: Any])?["table"] as? Int == 7)
    }

    @Test("a batch whose extra values make a pass that cannot be built is refused naming those rows; nothing is issued", arguments: Backend.allCases)
    func unbuildablePasses(backend: Backend) throws {
        let app = try OrganizerSupport.start(backend)
        defer { app.stop() }
        let event = try OrganizerSupport.createEvent(app, template: "colour-ticket")
        let single = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Ada","extra":{"colour":"red"}}"#)
        #expect(single.status == 400)
        #expect((OrganizerSupport.error(single)?["message"] as? String)?.hasPrefix("pass: ") == true)
        let rows = #"[{"attendeeName":"A","extra":{"colour":"rgb(1, 2, 3)"}},{"attendeeName":"B","extra":{"colour":"red"}},"#
            + #"{"attendeeName":"C","extra":{"colour":"rgb(1, 2, 3)"}},{"attendeeName":"D","extra":{"colour":"blue"}},{"attendeeName":"E"}]"#
        let refused = try OrganizerSupport.upload(app, event: event, body: Array(rows.utf8), contentType: "application/json")
        #expect(refused.status == 400)
        let problems = try #require(OrganizerSupport.error(refused)?["problems"] as? [[String: Any]])
        #expect(problems.map { $0["row"] as? Int ?? -1 } == [1, 3])
        #expect(problems.allSatisfy { $0["field"] as? String == "pass" && ($0["problem"] as? String)?.contains("backgroundColor") == true })
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 0, "the whole import was rolled back")
        let fixed = rows.replacingOccurrences(of: #""red""#, with: #""rgb(9, 9, 9)""#).replacingOccurrences(of: #""blue""#, with: #""rgb(0, 0, 255)""#)
        #expect(try OrganizerSupport.upload(app, event: event, body: Array(fixed.utf8), contentType: "application/json").status == 200)
        #expect(try OrganizerSupport.ticketCount(app, event: event) == 5)
    }
}

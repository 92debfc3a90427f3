import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// `GET /admin/v1/events/{eventId}/tickets.csv` over real HTTP, read back with the parser of the
/// batch import, and imported again.
@Suite("Admin API: CSV export", .offCooperativePool, .timeLimit(.minutes(5)))
struct TicketExportTests {
    /// Attendee names a spreadsheet must show as text, and names that need quoting.
    static let hostileNames = [
        #"=HYPERLINK("http://attacker.example","open me")"#, "+81 90 1234 5678", "-2+3", "@SUM(A1:A9)", "'=already guarded",
        "''+twice", "Smith, John", #"The "Boss""#, "山田 太郎", "Zoë Ångström", " padded ", "Two\r\nLines",
    ]

    @Test("every ticket, the documented columns, formula cells guarded, values round-trip", arguments: Backend.allCases)
    func export(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let bulk = try AdminSupport.insertPasses(1_203, event: event, store: app.store, vault: app.application.passes.vault, passType: app.passTypeIdentifier)
        var hostile: [StoredPass] = []
        for name in Self.hostileNames {
            var pass = try AdminSupport.newPass(event: event, vault: app.application.passes.vault, passType: app.passTypeIdentifier, attendee: name)
            pass.attendeeEmail = "guest@example.com"
            pass.seat = "=1+1"
            hostile.append(try app.store.withSession(.write) { try $0.passes.insertPass(pass, now: Date()) })
        }
        // One ticket cancelled with a reason; one held by a phone that is up to date.
        #expect(try app.admin("POST", "/admin/v1/tickets/\(bulk[5].serialNumber)/cancel", json: #"{"reason":"Refunded, sorry"}"#).status == 200)
        let phone = Phone(app: app)
        #expect(try phone.register(bulk[7].serialNumber.rawValue).status == 201)
        _ = try phone.changedSerials()
        #expect(try phone.fetch(bulk[7].serialNumber.rawValue).status == 200)
        let other = Phone(app: app)
        #expect(try other.register(bulk[8].serialNumber.rawValue).status == 201)

        let response = try app.admin("GET", "/admin/v1/events/\(event)/tickets.csv")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/csv; charset=utf-8; header=present")
        #expect(response.header("Content-Disposition") == "attachment; filename=\"tickets-\(event).csv\"")
        #expect(response.header("Transfer-Encoding")?.lowercased() == "chunked", "streamed, not built in memory")
        #expect(Array(response.body.prefix(3)) == [0xEF, 0xBB, 0xBF])
        #expect(response.body.suffix(2) == [13, 10], "the last record ends with CRLF")
        let records = try CSV.records(Array(response.body.dropFirst(3))).map(\.fields)
        let columns = [
            "attendeeName", "attendeeEmail", "seat", "externalId", "language", "orderId", "buyerEmail", "buyerName", "ticketType", "gate",
            "serialNumber", "status", "voidReason", "downloadURL", "devices", "devicesUpToDate", "emailStatus", "checkedInAt", "checkInGate", "checkInScanner",
        ]
        #expect(records.first == columns, "the import's columns, the default template's extra fields, what the server reports")
        let rows = records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(columns, $0)) }
        #expect(rows.count == 1_203 + Self.hostileNames.count)
        #expect(records.dropFirst().allSatisfy { $0.count == columns.count })
        // Every cell is guarded, serial numbers too (a random one may start with "-").
        let serials = rows.map { CSV.removingFormulaGuard($0["serialNumber"] ?? "") }
        #expect(serials == (bulk + hostile).map(\.serialNumber.rawValue), "every ticket once, in issue order")
        #expect(rows.contains { $0["serialNumber"]?.hasPrefix("'-") == true } == serials.contains { $0.hasPrefix("-") })

        let bySerial = Dictionary(uniqueKeysWithValues: zip(serials, rows).map { ($0, $1) })
        let cancelled = try #require(bySerial[bulk[5].serialNumber.rawValue])
        #expect(cancelled["status"] == "cancelled")
        #expect(cancelled["voidReason"] == "Refunded, sorry")
        #expect(bySerial[bulk[6].serialNumber.rawValue]?["status"] == "active")
        #expect(bySerial[bulk[7].serialNumber.rawValue]?["devices"] == "1")
        #expect(bySerial[bulk[7].serialNumber.rawValue]?["devicesUpToDate"] == "1")
        #expect(bySerial[bulk[8].serialNumber.rawValue]?["devices"] == "1")
        #expect(bySerial[bulk[8].serialNumber.rawValue]?["devicesUpToDate"] == "0")
        #expect(bySerial[bulk[9].serialNumber.rawValue]?["devices"] == "0")
        // The download link works: it is the ticket's own.
        let link = try AdminSupport.path(of: bySerial[bulk[9].serialNumber.rawValue]?["downloadURL"])
        #expect(try app.request("GET", link).status == 200)

        for (pass, name) in zip(hostile, Self.hostileNames) {
            let row = try #require(bySerial[pass.serialNumber.rawValue])
            let cell = try #require(row["attendeeName"])
            if let first = name.first(where: { $0 != "'" }), "=+-@".contains(first) {
                #expect(cell == "'" + name, "a formula-like name is written with a leading apostrophe")
            } else {
                #expect(cell == name)
            }
            #expect(row["seat"] == "'=1+1")
            #expect(CSV.removingFormulaGuard(cell) == name, "reading strips exactly the apostrophe writing added")
            #expect(CSV.removingFormulaGuard(row["seat"] ?? "") == "=1+1")
            #expect(row["attendeeEmail"] == "guest@example.com")
        }
    }

    @Test("one page of tickets at a time, never the whole event", arguments: Backend.allCases)
    func pages(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        _ = try AdminSupport.insertPasses(1_100, event: event, store: app.store, vault: app.application.passes.vault, passType: app.passTypeIdentifier)
        let admin = AdminController(store: app.store, passes: app.application.passes, logger: app.application.logger, pushesEnqueued: {}, jobCreated: {})
        let stored = try #require(try app.store.withSession(.read) { try $0.events.event(id: event) })
        let export = TicketExport(admin: admin, eventID: event, fields: admin.templateFields(of: stored), downloadURLs: true)
        var pieces: [[UInt8]] = []
        while let piece = try export.next() { pieces.append(piece) }
        let rows = try pieces.dropFirst().map { try CSV.records($0).count }
        #expect(rows == [500, 500, 100], "the header, then pages of at most \(TicketExport.pageSize) tickets")
        #expect(try export.next() == nil)
        let whole = try app.admin("GET", "/admin/v1/events/\(event)/tickets.csv").body
        #expect(whole == pieces.flatMap { $0 })
        #expect(try app.admin("GET", "/admin/v1/events/nonexistent/tickets.csv").status == 404)
    }

    /// The hostile names the admin API accepts (it refuses line breaks and trims surrounding
    /// spaces), and names whose apostrophes must be kept.
    static let roundTripNames = hostileNames.filter { !$0.contains("\r\n") && $0 == $0.trimmingCharacters(in: .whitespaces) }
        + ["O'Neil", "'quoted"]

    @Test("export → import: the same tickets into another event, none new into its own", arguments: Backend.allCases)
    func exportImportsAgain(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        var rows: [[String: Any]] = Self.roundTripNames.enumerated().map { index, name in
            [
                "attendeeName": name, "attendeeEmail": "guest\(index)@example.com", "seat": index % 2 == 0 ? "=1+1" : "A\(index)",
                "externalId": index % 3 == 0 ? "-ORD-\(index)" : "ORD,\(index)",
                "extra": ["ticketType": ["General", "VIP", "Student", "Staff"][index % 4], "gate": index % 2 == 0 ? "-3" : "North, \"B\""],
            ]
        }
        rows.append(["attendeeName": "No External Id"])
        let body = Array(try JSONSerialization.data(withJSONObject: rows))
        let issued = try app.request(
            "POST", "/admin/v1/events/\(event)/tickets:batch",
            headers: [("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "application/json")], body: body
        )
        #expect(issued.status == 200, "\(issued.text.prefix(500))")
        let serials = try #require(issued.jsonObject?["tickets"] as? [[String: Any]]).compactMap { $0["serialNumber"] as? String }
        try #require(serials.count == rows.count)
        #expect(try app.admin("POST", "/admin/v1/tickets/\(serials[1])/cancel", json: #"{"reason":"=refund"}"#).status == 200)

        let exported = try app.admin("GET", "/admin/v1/events/\(event)/tickets.csv")
        #expect(exported.status == 200)
        let upload = { (target: String) in
            try app.request(
                "POST", "/admin/v1/events/\(target)/tickets:batch",
                headers: [("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "text/csv")], body: exported.body
            )
        }
        let other = try app.createEvent(name: "Encore")
        let copied = try upload(other)
        #expect(copied.status == 200, "\(copied.text.prefix(500))")
        #expect(copied.jsonObject?["created"] as? Int == rows.count)
        let copies = try #require(copied.jsonObject?["tickets"] as? [[String: Any]]).compactMap { $0["serialNumber"] as? String }
        #expect(copies.count == rows.count)
        for (original, copy) in zip(serials, copies) {
            let before = try #require(try app.admin("GET", "/admin/v1/tickets/\(original)").jsonObject)
            let after = try #require(try app.admin("GET", "/admin/v1/tickets/\(copy)").jsonObject)
            for key in ["attendeeName", "attendeeEmail", "seat", "externalId"] {
                #expect(after[key] as? String == before[key] as? String, "\(key) of \(before["attendeeName"] ?? "")")
            }
            #expect(after["extra"] as? [String: String] == before["extra"] as? [String: String])
            #expect(after["status"] as? String == "active", "the status is reported, not imported")
        }

        // Into its own event: the rows with an external id are the tickets it has.
        let again = try upload(event)
        #expect(again.status == 200, "\(again.text.prefix(500))")
        #expect(again.jsonObject?["existing"] as? Int == rows.count - 1)
        #expect(again.jsonObject?["created"] as? Int == 1, "a row without externalId has nothing to be recognised by")
        let entries = try #require(again.jsonObject?["tickets"] as? [[String: Any]])
        #expect(entries.prefix(rows.count - 1).compactMap { $0["serialNumber"] as? String } == Array(serials.prefix(rows.count - 1)))
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Who came, over real HTTP on both backends: check-ins in the ticket lists (the admin API, the
/// dashboard's table, the CSV export) and their filter, undoing a check-in from the dashboard, and
/// the attendance page's plots, whose numbers must be the ones the test counts itself.
@Suite("Attendance: check-ins listed, filtered, exported, undone and plotted", .offCooperativePool, .timeLimit(.minutes(6)))
struct AttendanceTests {
    @Test("the API list, the dashboard table and the CSV export show each check-in's time, gate and scanner; checkedIn filters", arguments: Backend.allCases)
    func listsAndExport(backend: Backend) throws {
        var fixture = try AttendanceFixture(backend, tickets: 6)
        defer { fixture.stop() }
        let (app, event) = (fixture.app, fixture.event)
        let serials = fixture.tickets.map(\.serial)
        // Before any check-in the filter could match: nothing is checked in, everything is not.
        #expect(try Self.listed(app, event, "checkedIn=true") == [])
        #expect(try Self.listed(app, event, "checkedIn=false") == serials)
        try fixture.checkIn(serials[0], gate: "North", minutesAgo: 40)
        try fixture.checkIn(serials[2], gate: "South <B>", minutesAgo: 20)
        try fixture.checkIn(serials[3], gate: "North", minutesAgo: 5)
        let inside = [serials[0], serials[2], serials[3]]

        // The admin API: the filter, and each ticket's check-in.
        #expect(try Self.listed(app, event, "checkedIn=true") == inside)
        #expect(try Self.listed(app, event, "checkedIn=false") == [serials[1], serials[4], serials[5]])
        #expect(try Self.listed(app, event, "checkedIn=true&status=active&q=guest%203") == [serials[3]])
        let page = try #require(try app.admin("GET", "/admin/v1/events/\(event)/tickets").jsonObject?["tickets"] as? [[String: Any]])
        for ticket in page {
            let serial = try #require(ticket["serialNumber"] as? String)
            let record = ticket["checkIn"] as? [String: Any]
            if let made = fixture.checkIns[serial] {
                #expect(record?["checkedInAt"] as? String == ISODate.format(made.at), "\(serial): \(ticket)")
                #expect(record?["gate"] as? String == made.gate)
                #expect(record?["scanner"] as? String == fixture.scannerName)
                #expect(ticket["checkedInAt"] as? String == ISODate.format(made.at))
            } else {
                #expect(record == nil && ticket["checkedInAt"] == nil, "\(serial) was never checked in: \(ticket)")
            }
        }
        let refused = try app.admin("GET", "/admin/v1/events/\(event)/tickets?checkedIn=yes")
        #expect(refused.status == 400)
        #expect(refused.text.contains("checkedIn: must be one of true, false"), "\(refused.text)")

        // The dashboard's table: the column, and the filter.
        let viewer = try fixture.dashboard(.viewer)
        let table = try viewer.get("/admin/events/\(event)?checkedIn=true")
        #expect(table.status == 200)
        let rows = AttendanceFixture.tableRows("tickets", in: table.text)
        #expect(rows.map(\.first) == inside.map { serial in "Guest \(serials.firstIndex(of: serial) ?? -1)" })
        for (row, serial) in zip(rows, inside) {
            let made = try #require(fixture.checkIns[serial])
            #expect(row.last == "\(AttendanceFixture.label(made.at)) · gate \(made.gate)", "\(row)")
        }
        #expect(table.text.contains("South &lt;B&gt;"), "the gate is escaped")
        let outside = AttendanceFixture.tableRows("tickets", in: try viewer.get("/admin/events/\(event)?checkedIn=false").text)
        #expect(outside.map(\.first) == ["Guest 1", "Guest 4", "Guest 5"])
        #expect(outside.allSatisfy { $0.last == "—" })

        // The export: three columns the import skips.
        let csv = try app.admin("GET", "/admin/v1/events/\(event)/tickets.csv")
        let records = try CSV.records(Array(csv.body.dropFirst(3))).map(\.fields)
        let header = try #require(records.first)
        #expect(Array(header.suffix(3)) == ["checkedInAt", "checkInGate", "checkInScanner"])
        for record in records.dropFirst() {
            let cells = Dictionary(uniqueKeysWithValues: zip(header, record))
            let serial = CSV.removingFormulaGuard(cells["serialNumber"] ?? "")
            let made = fixture.checkIns[serial]
            #expect(cells["checkedInAt"] == (made.map { ISODate.format($0.at) } ?? ""), "\(serial)")
            #expect(cells["checkInGate"] == (made?.gate ?? ""))
            #expect(cells["checkInScanner"] == (made == nil ? "" : fixture.scannerName))
        }
        #expect(records.count == serials.count + 1)
    }

    @Test("an admin undoes a check-in from the ticket page: logged with who and when, the ticket checks in again; viewer and scanner 403", arguments: Backend.allCases)
    func undo(backend: Backend) throws {
        var fixture = try AttendanceFixture(backend, tickets: 2)
        defer { fixture.stop() }
        let app = fixture.app
        let serial = fixture.tickets[0].serial
        try fixture.checkIn(serial, gate: "East", minutesAgo: 10)
        let admin = try fixture.dashboard(.admin)
        let ticketPage = "/admin/tickets/\(serial)"
        let shown = try admin.get(ticketPage)
        #expect(shown.text.contains(#"action="/admin/tickets/\#(serial)/checkin/undo""#), "the admin sees the form")
        #expect(shown.text.contains(#"<span id="checkin-gate">East</span>"#))

        // Refused to a viewer and to a scanner, the check-in untouched.
        let viewer = try fixture.dashboard(.viewer)
        #expect(!(try viewer.get(ticketPage).text.contains("/checkin/undo")), "a viewer sees no form")
        let byViewer = try viewer.post("\(ticketPage)/checkin/undo", [("confirm", "yes")], csrf: try viewer.csrf(on: ticketPage))
        #expect(byViewer.status == 403)
        let scanner = try fixture.dashboard(.scanner)
        let byScanner = try scanner.post("\(ticketPage)/checkin/undo", [("confirm", "yes")], csrf: try scanner.csrf(on: "/admin/scan"))
        #expect(byScanner.status == 403)
        let unconfirmed = try admin.post("\(ticketPage)/checkin/undo", [], csrf: try admin.csrf(on: ticketPage))
        #expect(unconfirmed.status == 400)
        #expect(try Self.checkedInAt(app, serial) != nil, "still checked in")

        let before = Date()
        let undone = try admin.post("\(ticketPage)/checkin/undo", [("confirm", "yes")], csrf: try admin.csrf(on: ticketPage))
        #expect(undone.status == 303, "\(app.logs.lines.filter { $0.contains("failed") })")
        #expect(undone.header("Location") == "\(ticketPage)?notice=checkin-undone")
        #expect(try Self.checkedInAt(app, serial) == nil, "not checked in any more")
        let adminName = try #require(try app.store.execute("SELECT name FROM admin_tokens WHERE role = 'admin'").first?.string("name"))

        // Logged by the server, and kept where the ticket page and the API show it.
        let logged = app.logs.lines.filter { $0.contains("check-in undone") }
        #expect(logged.count == 1 && logged.allSatisfy { $0.contains(adminName) && $0.contains(serial) }, "\(logged)")
        let after = try admin.get("\(ticketPage)?notice=checkin-undone")
        #expect(after.text.contains("Check-in undone: the ticket can be checked in again."))
        let rows = AttendanceFixture.tableRows("undone-checkins", in: after.text)
        #expect(rows.count == 1)
        #expect(rows.first?[1] == "East" && rows.first?[2] == fixture.scannerName && rows.first?[4] == adminName, "\(rows)")
        #expect(!after.text.contains("/checkin/undo\""), "nothing left to undo")
        let read = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        let kept = try #require((read["undoneCheckIns"] as? [[String: Any]])?.first, "\(read)")
        #expect(kept["undoneBy"] as? String == adminName)
        #expect(kept["gate"] as? String == "East")
        let undoneAt = try #require(ISODate.parse(kept["undoneAt"] as? String ?? ""))
        #expect(undoneAt >= before.addingTimeInterval(-1) && undoneAt <= Date().addingTimeInterval(1))
        #expect(read["checkIn"] == nil && read["checkedInAt"] == nil)

        // It checks in again, as a ticket never checked in.
        let again = try fixture.scanner.scan(try fixture.scanner.code(serial), gate: "West")
        #expect(again.status == 200, "\(again.text)")
        #expect(try Self.checkedInAt(app, serial) != nil)
        // The API's undo records its token too.
        #expect(try app.admin("DELETE", "/admin/v1/tickets/\(serial)/checkin").status == 200)
        let both = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["undoneCheckIns"] as? [[String: Any]])
        #expect(both.map { $0["gate"] as? String } == ["West", "East"], "newest first")
    }

    @Test("the attendance page's plots carry the numbers the test counts: issued, Wallet, per quarter hour, no-shows, types, gates", arguments: Backend.allCases)
    func plots(backend: Backend) throws {
        var fixture = try AttendanceFixture(backend, tickets: 9)
        defer { fixture.stop() }
        let (app, event) = (fixture.app, fixture.event)
        let viewer = try fixture.dashboard(.viewer)
        let path = "/admin/events/\(event)/attendance"
        // Before anyone came: the check-in plots are empty, and say so.
        let early = try viewer.get(path)
        #expect(early.status == 200)
        #expect(early.text.contains(#"id="plot-checkins-empty""#) && early.text.contains(#"id="plot-gates-empty""#))
        #expect(AttendanceFixture.text(early.text.firstMatch(of: /id="att-no-shows">([^<]*)</)?.1.description ?? "") == "9")

        let serials = fixture.tickets.map(\.serial)
        let scans: [(Int, String, Double)] = [(0, "North", 50), (1, "North", 48), (2, "South", 33), (3, "North", 31), (5, "East", 3), (6, "South", 2)]
        for (index, gate, minutes) in scans { try fixture.checkIn(serials[index], gate: gate, minutesAgo: minutes) }
        for (index, minutes) in [(0, 300.0), (1, 200), (4, 190), (7, 30)] { try fixture.addToWallet(serials[index], minutesAgo: minutes) }
        // Cancelled after it came in: no longer an active ticket, still a check-in at its gate.
        #expect(try app.admin("POST", "/admin/v1/tickets/\(serials[6])/cancel", json: "{}").status == 200)
        fixture.cancelled = serials[6]

        let response = try viewer.get(path)
        #expect(response.status == 200)
        let html = response.text
        #expect(html.contains("Attendance &lt;Night&gt;"), "the event's name is escaped")
        #expect(try viewer.get("/admin/events/\(event)").text.contains(#"href="/admin/events/\#(event)/attendance""#), "linked from the event page")

        // Tickets issued: one an hour, each in its own bucket of the hours they span.
        let issuedRows = AttendanceFixture.tableRows("plot-issued-data", in: html)
        #expect(issuedRows.compactMap { AttendanceFixture.number($0[1]) }.reduce(0, +) == 9)
        #expect(AttendanceFixture.barValues("plot-issued", in: html) == issuedRows.compactMap { AttendanceFixture.number($0[1]) })
        // Wallet: four passes, each counted once at its first phone.
        let walletRows = AttendanceFixture.tableRows("plot-wallet-data", in: html)
        #expect(Self.counted(walletRows) == Self.expected(fixture.walletAdds.values, rows: walletRows))
        #expect(AttendanceFixture.barValues("plot-wallet", in: html).reduce(0, +) == 4)
        // Check-ins per quarter hour, every quarter hour from the first scan's to the last's.
        let doorRows = AttendanceFixture.tableRows("plot-checkins-data", in: html)
        #expect(html.contains("Check-ins per 15 minutes"))
        let quarters = Self.quarterHours(fixture.checkIns.values.map(\.at))
        #expect(doorRows.map { $0[0] } == quarters.map(\.label), "\(doorRows)")
        #expect(doorRows.compactMap { AttendanceFixture.number($0[1]) } == quarters.map(\.count))
        #expect(AttendanceFixture.barValues("plot-checkins", in: html) == quarters.map(\.count))
        // Who came: active tickets (8) checked in (5) and not (3).
        let activeIn = fixture.checkIns.keys.filter { $0 != fixture.cancelled }.count
        #expect(AttendanceFixture.tableRows("plot-no-shows-data", in: html) == [["Active tickets", "\(activeIn)", "\(8 - activeIn)"]])
        #expect(AttendanceFixture.barValues("plot-no-shows", in: html) == [activeIn, 8 - activeIn])
        #expect(AttendanceFixture.text(html.firstMatch(of: /id="att-no-shows">([^<]*)</)?.1.description ?? "") == "\(8 - activeIn)")
        // By ticket type: each type's active tickets, checked in and not.
        var byType: [String: (in: Int, out: Int)] = [:]
        for (serial, type) in fixture.tickets where serial != fixture.cancelled {
            let came = fixture.checkIns[serial] != nil
            byType[type, default: (0, 0)].in += came ? 1 : 0
            byType[type, default: (0, 0)].out += came ? 0 : 1
        }
        let typeRows = AttendanceFixture.tableRows("plot-types-data", in: html)
        #expect(typeRows == byType.keys.sorted().map { [$0, "\(byType[$0]?.in ?? 0)", "\(byType[$0]?.out ?? 0)"] }, "\(typeRows)")
        // By gate: every check-in, the cancelled ticket's included, most first.
        var byGate: [String: Int] = [:]
        for made in fixture.checkIns.values { byGate[made.gate, default: 0] += 1 }
        let gateRows = AttendanceFixture.tableRows("plot-gates-data", in: html)
        #expect(gateRows == byGate.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { [$0.key, "\($0.value)"] }, "\(gateRows)")
        #expect(AttendanceFixture.barValues("plot-gates", in: html) == gateRows.compactMap { AttendanceFixture.number($0[1]) })
        // Each plot is labelled for screen readers.
        for id in ["plot-issued", "plot-wallet", "plot-checkins", "plot-no-shows", "plot-types", "plot-gates"] {
            #expect(html.contains(#"aria-labelledby="\#(id)-title \#(id)-desc""#), "\(id)")
        }
        #expect(try fixture.dashboard(.scanner).get(path).status != 200, "not a scanner's page")
    }

    // MARK: Helpers

    /// The serials `GET …/tickets?query` lists, in order.
    static func listed(_ app: TestApp, _ event: String, _ query: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let response = try app.admin("GET", "/admin/v1/events/\(event)/tickets?\(query)")
        #expect(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
        return (response.jsonObject?["tickets"] as? [[String: Any]] ?? []).compactMap { $0["serialNumber"] as? String }
    }

    static func checkedInAt(_ app: TestApp, _ serial: String) throws -> String? {
        try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["checkedInAt"] as? String
    }

    /// Label → count of a plot's table.
    static func counted(_ rows: [[String]]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: rows.map { ($0[0], AttendanceFixture.number($0[1]) ?? -1) })
    }

    /// Label → how many of `times` fall in each row's bucket (the rows' labels are their starts).
    static func expected(_ times: some Collection<Date>, rows: [[String]]) -> [String: Int] {
        let starts = rows.map { $0[0] }
        var counts = Dictionary(uniqueKeysWithValues: starts.map { ($0, 0) })
        for time in times {
            // The last bucket whose start is at or before the time (labels sort as times do).
            let label = AttendanceFixture.label(time)
            if let bucket = starts.last(where: { $0 <= label }) { counts[bucket, default: 0] += 1 }
        }
        return counts
    }

    /// Every quarter hour (local labels) from the first time's to the last's, with its count.
    static func quarterHours(_ times: [Date]) -> [(label: String, count: Int)] {
        let quarter = 900.0
        let buckets = times.map { Int(($0.timeIntervalSince1970 / quarter).rounded(.down)) }
        guard let first = buckets.min(), let last = buckets.max() else { return [] }
        return (first...last).map { bucket in
            (AttendanceFixture.label(Date(timeIntervalSince1970: Double(bucket) * quarter)), buckets.filter { $0 == bucket }.count)
        }
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Who came, in real headless Chromium (Tests/Browser/dashboard_attendance.py and
/// dashboard_job_reach.py): the attendance page's plots against the numbers the test counts, and
/// the re-push job panel's live plot of phones holding the new pass. Screenshots at desktop and
/// phone width stay in .build/test-output/browser/ to be looked at.
@Suite("Attendance in a browser", .offCooperativePool, .timeLimit(.minutes(8)), .tags(.endToEnd))
struct AttendanceBrowserTests {
    @Test("the attendance page: linked from the event page, every plot drawn to scale with the test's numbers in its table")
    func attendancePage() async throws {
        var fixture = try AttendanceFixture(.postgres, tickets: 12) {
            $0.http.publicURL = URL(string: "http://127.0.0.1")
            $0.http.allowInsecurePublicURL = true
        }
        defer { fixture.stop() }
        let serials = fixture.tickets.map(\.serial)
        for (index, gate, minutes) in [(0, "North", 58), (1, "North", 50), (2, "South", 44), (3, "North", 40), (4, "East", 12), (6, "South", 10), (7, "North", 2)] {
            try fixture.checkIn(serials[index], gate: gate, minutesAgo: Double(minutes))
        }
        for (index, minutes) in [(0, 600.0), (1, 420), (2, 400), (5, 100), (8, 30)] { try fixture.addToWallet(serials[index], minutesAgo: minutes) }
        // What the page must show, counted here: rows of the hidden tables.
        let quarters = AttendanceTests.quarterHours(fixture.checkIns.values.map(\.at))
        var byType: [String: (in: Int, out: Int)] = [:]
        for (serial, type) in fixture.tickets {
            let came = fixture.checkIns[serial] != nil
            byType[type, default: (0, 0)].in += came ? 1 : 0
            byType[type, default: (0, 0)].out += came ? 0 : 1
        }
        var byGate: [String: Int] = [:]
        for made in fixture.checkIns.values { byGate[made.gate, default: 0] += 1 }
        let came = fixture.checkIns.count
        let expected: [String: [[String]]] = [
            "plot-checkins": quarters.map { [$0.label, "\($0.count)"] },
            "plot-no-shows": [["Active tickets", "\(came)", "\(serials.count - came)"]],
            "plot-types": byType.keys.sorted().map { [$0, "\(byType[$0]?.in ?? 0)", "\(byType[$0]?.out ?? 0)"] },
            "plot-gates": byGate.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { [$0.key, "\($0.value)"] },
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: expected, options: [.sortedKeys]), as: UTF8.self)
        try await BrowserScript.expectPasses(
            "dashboard_attendance.py", serverURL: fixture.app.baseURL, name: "dashboard-attendance",
            environment: [
                "ADMIN_TOKEN": fixture.app.adminToken, "EVENT_ID": fixture.event, "EXPECTED": json, "SERIAL": serials[2], "GATE": "South",
                "CHECKED_IN": "\(fixture.checkIns.count)",
            ],
            timeLimit: .seconds(240), keepingOutput: true
        )
    }

    @Test("the job panel after an edit: the share of phones holding the new pass drawn against time, live, from 0 % to 100 %")
    func jobReach() async throws {
        let app = try DashboardBrowserTests.start()
        defer { app.stop() }
        let event = try app.createEvent()
        var phones: [(Phone, String)] = []
        for index in 0..<4 {
            let serial = try app.issueTicket(event: event, attendee: "Guest \(index)")
            let phone = Phone(app: app)
            #expect(try phone.register(serial).status == 201)
            phones.append((phone, serial))
        }
        let lock = try RowLockHolder(app.store, "SELECT id FROM passes WHERE event_id = \(event) FOR UPDATE")
        defer { lock.release() }
        let caughtUp = phones
        try await BrowserScript.expectPasses(
            "dashboard_job_reach.py", serverURL: app.baseURL, name: "dashboard-job-reach",
            environment: ["ADMIN_TOKEN": app.adminToken, "EVENT_ID": event, "PHONES": "\(phones.count)"],
            timeLimit: .seconds(240),
            requests: { name in
                // A phone catches up as Wallet does: it lists what changed, then fetches the pass.
                func catchUp(_ range: Range<Int>) throws {
                    for (phone, serial) in caughtUp[range] {
                        _ = try phone.changedSerials()
                        let fetched = try phone.fetch(serial)
                        guard fetched.status == 200 else { throw AdminSupport.Failure(description: "fetch: \(fetched.status)") }
                    }
                }
                switch name {
                case "release-passes": lock.release()
                case "half-up-to-date": try catchUp(0..<2)
                case "all-up-to-date": try catchUp(2..<4)
                default: throw AdminSupport.Failure(description: "unknown request \(name)")
                }
            },
            keepingOutput: true
        )
    }
}

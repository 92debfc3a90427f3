import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// What README's dashboard section claims, each seen in real headless Chromium
/// (Tests/Browser/dashboard_*.py): the job progress script moving a job that is still running,
/// event search and upcoming/past, archiving, the ticket table's status filter and paging, a new
/// download link, a ticket's phones and pushes, the QR code's content.
@Suite("Dashboard in a browser: README's claims", .offCooperativePool, .timeLimit(.minutes(10)), .tags(.endToEnd))
struct DashboardClaimsBrowserTests {
    static func environment(_ app: TestApp, _ extra: [String: String]) -> [String: String] {
        extra.merging(["ADMIN_TOKEN": app.adminToken]) { $1 }
    }

    @Test("a re-push job still running when the event page renders: rendered not done, then the page's script shows it done")
    func jobStillRunning() async throws {
        let app = try DashboardBrowserTests.start()
        defer { app.stop() }
        let event = try app.createEvent()
        for index in 0..<4 { _ = try app.issueTicket(event: event, attendee: "Guest \(index)") }
        // The job runner's batch waits for these rows until the script asks for them to be let go.
        let lock = try RowLockHolder(app.store, "SELECT id FROM passes WHERE event_id = \(event) FOR UPDATE")
        defer { lock.release() }
        try await BrowserScript.expectPasses(
            "dashboard_job_progress.py", serverURL: app.baseURL, name: "dashboard-job-progress",
            environment: Self.environment(app, ["EVENT_ID": event, "TICKETS": "4"]),
            requests: { name in
                guard name == "release-passes" else { throw AdminSupport.Failure(description: "unknown request \(name)") }
                lock.release()
            }
        )
        let jobs = try app.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 5) }
        #expect(jobs.count == 1)
        #expect(jobs.first?.state == .done && jobs.first?.done == 4)
    }

    @Test("events: search with upcoming, past and all; archive and unarchive; tickets: status filter and paging")
    func eventsAndTickets() async throws {
        let app = try DashboardBrowserTests.start()
        defer { app.stop() }
        // Upcoming until a day after they start; "now" is the machine's clock.
        let soon = ISODate.format(Date().addingTimeInterval(30 * 86_400))
        let past = ISODate.format(Date().addingTimeInterval(-30 * 86_400))
        let jazz = try OrganizerSupport.createEvent(app, name: "Autumn Jazz Night", venue: "Harbour Hall", startsAt: soon)
        _ = try OrganizerSupport.createEvent(app, name: "Autumn Market", venue: "Old Square", startsAt: past)
        _ = try OrganizerSupport.createEvent(app, name: "Winter Gala", venue: "Harbour Hall", startsAt: soon)
        _ = try OrganizerSupport.createEvent(app, name: "Spring Fair", venue: "Park", startsAt: past)

        // 57 tickets (more than the table's page of 50), 4 of them cancelled.
        var csv = "attendeeName,seat\n"
        for number in 1...57 { csv += "Guest \(String(format: "%02d", number)),S\(number)\n" }
        let upload = try OrganizerSupport.upload(app, event: jazz, body: Array(csv.utf8))
        #expect(upload.status == 200, "\(upload.text.prefix(300))")
        let entries = try #require(upload.jsonObject?["tickets"] as? [[String: Any]])
        let cancelled = [3, 17, 40, 56].map { "Guest \(String(format: "%02d", $0))" }
        for entry in entries where cancelled.contains(entry["attendeeName"] as? String ?? "") {
            let serial = try #require(entry["serialNumber"] as? String)
            #expect(try app.admin("POST", "/admin/v1/tickets/\(serial)/cancel", json: #"{"reason":"refunded"}"#).status == 200)
        }
        try await BrowserScript.expectPasses(
            "dashboard_events.py", serverURL: app.baseURL, name: "dashboard-events",
            environment: Self.environment(app, ["EVENT_ID": jazz, "TICKETS": "57", "CANCELLED": cancelled.joined(separator: ",")])
        )
        // The script unarchived the event again: the store agrees with what the page said.
        #expect(try app.admin("GET", "/admin/v1/events/\(jazz)").jsonObject?["archived"] as? Bool == false)
    }

    @Test("a ticket: its QR code encodes its link; a new link replaces it (the old one stops working); its phones and latest pushes")
    func ticketPage() async throws {
        let app = try DashboardBrowserTests.start()
        defer { app.stop() }
        let event = try app.createEvent(name: "Autumn Jazz Night", venue: "Harbour Hall")
        let serial = try app.issueTicket(event: event, attendee: "Ana Sousa", seat: "A-12")
        let phones = [Phone(app: app), Phone(app: app)]
        for phone in phones { #expect(try phone.register(serial).status == 201) }
        // An edit pushes both phones; the first then asks what changed and fetches the pass (so it
        // is up to date), the second does neither (so it is behind).
        #expect(try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Osaka Hall"}"#).status == 200)
        let deadline = Date().addingTimeInterval(60)
        var pushes: [[String: Any]] = []
        while Date() < deadline {
            pushes = try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["latestPushes"] as? [[String: Any]] ?? []
            if pushes.count >= 2 { break }
            await AdminSupport.pause(0.2)
        }
        try #require(pushes.count >= 2, "the edit's pushes were not logged: \(pushes)")
        let (status, serials, _) = try phones[0].changedSerials()
        #expect(status == 200 && serials == [serial])
        #expect(try phones[0].fetch(serial).status == 200)
        let link = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String)
        try await BrowserScript.expectPasses(
            "dashboard_ticket.py", serverURL: app.baseURL, name: "dashboard-ticket",
            environment: Self.environment(app, [
                "SERIAL": serial, "DOWNLOAD_URL": link, "PHONE_UP_TO_DATE": phones[0].deviceLibraryIdentifier,
                "PHONE_BEHIND": phones[1].deviceLibraryIdentifier,
                "PUSHES": String(decoding: try JSONSerialization.data(withJSONObject: pushes), as: UTF8.self),
            ])
        )
        // The page's new link is the ticket's link now.
        let rotated = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String)
        #expect(rotated != link)
        #expect(try app.request("GET", try AdminSupport.path(of: link)).status == 404)
        #expect(try app.request("GET", try AdminSupport.path(of: rotated)).status == 200)
    }
}

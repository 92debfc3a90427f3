import Foundation
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// What README's dashboard section claims, each seen in real headless Chromium
/// (Tests/Browser/dashboard_*.py): the job progress script moving a job that is still running.
@Suite("Dashboard in a browser: README's claims", .offCooperativePool, .timeLimit(.minutes(10)))
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
        let jobs = try app.store.withSession(.read) { try $0.jobs(eventID: event, limit: 5) }
        #expect(jobs.count == 1)
        #expect(jobs.first?.state == .done && jobs.first?.done == 4)
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// `GET /admin/jobs/{id}/progress`, the JSON the event page's script polls, with a dashboard
/// session: the job's fields while it runs and once it is done; 401 without a session.
@Suite("Dashboard: job progress", .offCooperativePool, .timeLimit(.minutes(4)))
struct DashboardJobProgressTests {
    /// The re-push job an edit from the dashboard started (its id from the redirect).
    static func editVenue(_ client: DashboardClient, event: String, venue: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let saved = try client.post(
            "/admin/events/\(event)/edit",
            [("name", "Swift Night"), ("venue", venue), ("startsAt", "2027-03-01T19:00"), ("timeZone", "Asia/Tokyo"), ("template", "event-ticket"), ("language", "en")],
            csrf: client.csrf(on: "/admin/events/\(event)/edit")
        )
        #expect(saved.status == 303, "\(saved.text.prefix(500))", sourceLocation: sourceLocation)
        let location = try #require(saved.header("Location"), sourceLocation: sourceLocation)
        return String(try #require(location.firstMatch(of: /[?&]job=([A-Za-z0-9_-]+)/)?.1, "no job in \(location)", sourceLocation: sourceLocation))
    }

    /// Polls the progress until `condition` holds (at most `seconds`); returns the last answer.
    static func progress(
        _ client: DashboardClient, _ job: String, within seconds: Double = 30, until condition: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String: Any] = [:]
        repeat {
            let response = try client.get("/admin/jobs/\(job)/progress")
            last = response.jsonObject ?? ["status": response.status]
            if condition(last) { return last }
            await AdminSupport.pause(0.1)
        } while Date() < deadline
        return last
    }

    @Test("a session gets the job's fields, running and then done, with private no-store caching; no session, a stale one, a scanner's: 401", arguments: Backend.allCases)
    func progress(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        var serials: [String] = []
        for index in 0..<3 { serials.append(try app.issueTicket(event: event, attendee: "Guest \(index)")) }
        // Two phones hold the first ticket: the job's reach counts them.
        for _ in 0..<2 { #expect(try Phone(app: app).register(serials[0]).status == 201) }
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let (viewer, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .viewer))

        // On PostgreSQL the passes are held locked, so the job is caught before it finishes.
        let lock = backend == .postgres ? try RowLockHolder(app.store, "SELECT id FROM passes WHERE event_id = \(event) FOR UPDATE") : nil
        defer { lock?.release() }
        let job = try Self.editVenue(admin, event: event, venue: "Osaka Hall")

        let first = try admin.get("/admin/jobs/\(job)/progress")
        #expect(first.status == 200, "\(first.text)")
        #expect(first.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(first.header("Cache-Control") == "private, no-store")
        let body = try #require(first.jsonObject)
        #expect(body["id"] as? String == job)
        #expect(body["kind"] as? String == "repush")
        #expect(body["eventId"] as? String == event)
        #expect(body["total"] as? Int == 3)
        #expect(body["failed"] as? Int == 0)
        #expect(body["emails"] == nil, "a re-push has no email counts")
        if lock != nil {
            // Held: claimed (or about to be) and nothing done yet.
            let state = body["state"] as? String
            #expect(state == "pending" || state == "running", "\(body)")
            #expect(body["done"] as? Int == 0)
            #expect(body["finishedAt"] == nil)
            // Still so a moment later: the lock is what holds it.
            await AdminSupport.pause(1)
            #expect(try admin.get("/admin/jobs/\(job)/progress").jsonObject?["state"] as? String != "done")
            lock?.release()
        }
        let done = try await Self.progress(admin, job) { $0["state"] as? String == "done" && ($0["reach"] as? [String: Any])?["pushesPending"] as? Int == 0 }
        #expect(done["state"] as? String == "done", "\(done)")
        #expect(done["done"] as? Int == 3)
        #expect(done["total"] as? Int == 3)
        #expect(done["startedAt"] is String)
        #expect(done["finishedAt"] is String)
        let reach = try #require(done["reach"] as? [String: Any], "\(done)")
        #expect(reach["devices"] as? Int == 2, "\(reach)")
        for key in ["devicesUpToDate", "pushesPending", "pushesDelivered", "pushesFailed"] {
            #expect(reach[key] is Int, "reach.\(key): \(reach)")
        }
        // A viewer's session reads it too: the page is the same for both.
        let asViewer = try viewer.get("/admin/jobs/\(job)/progress")
        #expect(asViewer.status == 200)
        #expect(asViewer.jsonObject?["id"] as? String == job)
        #expect(try admin.get("/admin/jobs/nosuchjob00000000/progress").status == 404)

        // Without a session: 401 JSON (the script's fetch), never the job.
        let (scanner, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .scanner))
        let stale = DashboardClient(app: app, cookie: "__Host-ps_session=" + String(repeating: "A", count: 43))
        for (label, client) in [("no session", DashboardClient(app: app, cookie: nil)), ("an unknown session", stale), ("a scanner's session", scanner)] {
            let refused = try client.get("/admin/jobs/\(job)/progress")
            #expect(refused.status == 401, "\(label): \(refused.status)")
            #expect(refused.errorCode == "unauthorized", "\(label): \(refused.text)")
            #expect(!refused.text.contains(event), "\(label): the job leaked")
        }
        // A bearer token is not a session here.
        let bearer = try app.request("GET", "/admin/jobs/\(job)/progress", headers: [("Authorization", "Bearer \(app.adminToken)")])
        #expect(bearer.status == 401)
    }
}

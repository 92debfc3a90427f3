import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// Archived events: their changes reach passes and phones that ask, but no push goes out;
/// unarchiving brings pushes back.
@Suite("Admin API: archived events", .offCooperativePool, .timeLimit(.minutes(5)))
struct EventArchiveTests {
    @Test("an edit pushes; archived, an edit (and a rename) pushes nothing yet still reaches the pass; unarchived, pushes again", arguments: Backend.allCases)
    func archiveStopsPushes(backend: Backend) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
        defer { app.stop(); fake.shutdown() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        let tag = try #require(try phone.changedSerials().lastUpdated)

        // Not archived: an edit reaches the phone, and how long that took sets the quiet window below.
        let started = Date()
        #expect(try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Hall 2"}"#).status == 200)
        try await eventually("an edit of a live event pushes", timeout: 60) { fake.count(token: phone.pushToken) == 1 }
        let pushDelay = Date().timeIntervalSince(started)

        let archived = try app.admin("POST", "/admin/v1/events/\(event)/archive")
        #expect(archived.status == 200)
        #expect(archived.jsonObject?["archived"] as? Bool == true)
        let edit = try #require(try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Hall 3"}"#).jsonObject)
        let job = try #require((edit["job"] as? [String: Any])?["id"] as? String)
        try await eventually("the job done", timeout: 60) { (try? app.admin("GET", "/admin/v1/jobs/\(job)").jsonObject?["state"] as? String) == "done" }
        let renamed = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"Grace Hopper"}"#)
        #expect(renamed.status == 200)
        // The job bumped the pass and enqueued nothing (its reach counts no push of any kind), and
        // the rename enqueued nothing either (the event's pending pushes stay 0).
        let jobReach = try ReachEndToEndTests.reach(app, "/admin/v1/jobs/\(job)")
        #expect(jobReach["pushesPending"] == 0 && jobReach["pushesDelivered"] == 0 && jobReach["pushesFailed"] == 0, "\(jobReach)")
        #expect(try ReachEndToEndTests.reach(app, "/admin/v1/events/\(event)")["pushesPending"] == 0)
        // Long enough for a push to have arrived had one been sent: three times the measured delay, at least 5 s.
        await AdminSupport.pause(max(5, 3 * pushDelay))
        #expect(fake.count(token: phone.pushToken) == 1, "nothing was pushed while archived")

        // The phone that asks still sees the change, and the pass and its link still serve it.
        let listed = try phone.changedSerials(since: tag)
        #expect(listed.serials == [serial])
        let fetched = try phone.fetch(serial)
        #expect(fetched.status == 200)
        let pass = try PassArchive.passJSON(fetched.body)
        #expect(AdminSupport.field("venue", in: pass)?["value"] as? String == "Hall 3")
        #expect(AdminSupport.field("attendee", in: pass)?["value"] as? String == "Grace Hopper")
        #expect(try ReachEndToEndTests.reach(app, "/admin/v1/events/\(event)")["devicesUpToDate"] == 1, "a phone that asks is up to date")
        let ticket = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        #expect(try app.request("GET", try AdminSupport.path(of: ticket["downloadURL"] as? String)).status == 200)

        #expect(try app.admin("POST", "/admin/v1/events/\(event)/unarchive").jsonObject?["archived"] as? Bool == false)
        #expect(try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Hall 4"}"#).status == 200)
        try await eventually("unarchived, edits push again", timeout: 60) { fake.count(token: phone.pushToken) == 2 }
    }
}

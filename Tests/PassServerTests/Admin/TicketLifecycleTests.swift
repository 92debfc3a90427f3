import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// Organizer changes reaching a phone: issue → download → register → change → push → list → fetch.
@Suite("Admin API: ticket lifecycle with pushes", .offCooperativePool, .timeLimit(.minutes(4)))
struct TicketLifecycleTests {
    @Test("issue, download, rename: the phone is pushed, lists the serial and fetches the new name", arguments: Backend.allCases)
    func renameReachesThePhone(backend: Backend) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
        defer { app.stop(); fake.shutdown() }
        let event = try app.createEvent()

        let issued = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Ada Lovelace","attendeeEmail":"ada@example.com"}"#)
        #expect(issued.status == 201)
        let serial = try #require(issued.jsonObject?["serialNumber"] as? String)
        let firstRevision = try #require(issued.jsonObject?["revision"] as? Int)

        // The attendee's link: no admin token, a signed zip as an attachment.
        let download = try app.request("GET", try AdminSupport.path(of: issued.jsonObject?["downloadURL"] as? String))
        #expect(download.status == 200)
        #expect(download.header("Content-Type") == "application/vnd.apple.pkpass")
        #expect(download.header("Content-Disposition") == "attachment; filename=ticket.pkpass")
        let downloaded = try PassArchive.passJSON(download.body)
        #expect(downloaded["serialNumber"] as? String == serial)
        #expect(AdminSupport.field("attendee", in: downloaded)?["value"] as? String == "Ada Lovelace")

        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        let tag = try #require(try phone.changedSerials().lastUpdated)

        let renamedAt = Date()
        let renamed = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"Grace Hopper"}"#)
        #expect(renamed.status == 200)
        #expect(renamed.jsonObject?["attendeeName"] as? String == "Grace Hopper")
        let secondRevision = try #require(renamed.jsonObject?["revision"] as? Int)
        #expect(secondRevision > firstRevision)

        try await eventually("the phone was pushed") { fake.count(token: phone.pushToken) >= 1 }
        // How long a push took to arrive here sets the quiet window of the check below.
        let pushDelay = Date().timeIntervalSince(renamedAt)
        let push = try #require(fake.pushes.first { $0.token == phone.pushToken })
        #expect(push.topic == app.passTypeIdentifier)
        #expect(push.body == Array("{}".utf8))

        let listed = try phone.changedSerials(since: tag)
        #expect(listed.status == 200)
        #expect(listed.serials == [serial])
        let fetched = try phone.fetch(serial)
        #expect(fetched.status == 200)
        #expect(AdminSupport.field("attendee", in: try PassArchive.passJSON(fetched.body))?["value"] as? String == "Grace Hopper")

        // The ticket view shows the device and the delivered push.
        var detail: [String: Any]?
        try await eventually("the delivered push on the ticket view") {
            detail = try? app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject
            return !((detail?["latestPushes"] as? [[String: Any]]) ?? []).isEmpty
        }
        #expect(detail?["registeredDevices"] as? Int == 1)
        #expect((detail?["latestPushes"] as? [[String: Any]])?.first?["status"] as? Int == 200)

        // The same name again changes nothing: same revision, no push.
        let unchanged = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"Grace Hopper"}"#)
        #expect(unchanged.status == 200)
        #expect(unchanged.jsonObject?["revision"] as? Int == secondRevision)
        // Long enough for a push to have arrived had one been sent: three times the measured delay, at least 1.5 s.
        await AdminSupport.pause(max(1.5, 3 * pushDelay))
        #expect(fake.count(token: phone.pushToken) == 1, "the unchanged rename pushed nothing")
        #expect(try phone.changedSerials(since: listed.lastUpdated).status == 204)
    }

    @Test("cancel voids the pass with a visible status change; cancelling twice changes nothing", arguments: Backend.allCases)
    func cancel(backend: Backend) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
        defer { app.stop(); fake.shutdown() }
        let serial = try app.issueTicket(event: try app.createEvent())
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)

        let cancelledAt = Date()
        let cancelled = try app.admin("POST", "/admin/v1/tickets/\(serial)/cancel", json: #"{"reason":"refunded"}"#)
        #expect(cancelled.status == 200)
        #expect(cancelled.jsonObject?["status"] as? String == "cancelled")
        #expect(cancelled.jsonObject?["voidReason"] as? String == "refunded")
        let revision = try #require(cancelled.jsonObject?["revision"] as? Int)
        try await eventually("the phone was pushed") { fake.count(token: phone.pushToken) >= 1 }
        let pushDelay = Date().timeIntervalSince(cancelledAt)

        let pass = try PassArchive.passJSON(try phone.fetch(serial).body)
        #expect(pass["voided"] as? Bool == true)
        let status = try #require(AdminSupport.field("status", in: pass))
        #expect(status["value"] as? String == "STATUS_CANCELLED")
        #expect(!((status["changeMessage"] as? String) ?? "").isEmpty)
        let strings = try String(contentsOfFile: PassServerExecutable.packageRoot.path + "/Passes/event-ticket/en.lproj/pass.strings", encoding: .utf8)
        #expect(strings.contains(#""STATUS_CANCELLED" = "Cancelled";"#))

        let again = try app.admin("POST", "/admin/v1/tickets/\(serial)/cancel")
        #expect(again.status == 200)
        #expect(again.jsonObject?["revision"] as? Int == revision)
        let rename = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"Someone Else"}"#)
        #expect(rename.status == 409)
        #expect(rename.errorCode == "ticket_cancelled")
        // Long enough for a push to have arrived had one been sent: three times the measured delay, at least 1.5 s.
        await AdminSupport.pause(max(1.5, 3 * pushDelay))
        #expect(fake.count(token: phone.pushToken) == 1, "a second cancel and a refused rename pushed nothing")
    }
}

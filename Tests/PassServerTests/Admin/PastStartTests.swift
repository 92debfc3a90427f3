import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// A new event starting in the past is most often a wrong day or year typed: the admin API
/// refuses it (409 `start_in_past`) unless the body confirms it; the attendee page of an ended
/// event says so and offers no pass to add.
@Suite("Admin API: events that start in the past", .offCooperativePool, .timeLimit(.minutes(3)))
struct PastStartTests {
    static func body(startsAt: Date, endsAt: Date? = nil, extra: String = "") -> String {
        let ends = endsAt.map { #","endsAt":"\#(ISODate.format($0))""# } ?? ""
        return #"{"name":"Yesterday's Gig","venue":"Hall","startsAt":"\#(ISODate.format(startsAt))"\#(ends)\#(extra)}"#
    }

    @Test("a past start is refused with start_in_past unless confirmPastStart is true; a future one needs nothing", arguments: Backend.allCases)
    func confirmation(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let past = Date().addingTimeInterval(-2 * 86_400)
        let refused = try app.admin("POST", "/admin/v1/events", json: Self.body(startsAt: past))
        #expect(refused.status == 409 && refused.errorCode == "start_in_past", "\(refused.text)")
        #expect(refused.text.contains("confirmPastStart"))
        let notConfirmed = try app.admin("POST", "/admin/v1/events", json: Self.body(startsAt: past, extra: #","confirmPastStart":false"#))
        #expect(notConfirmed.status == 409)
        let badFlag = try app.admin("POST", "/admin/v1/events", json: Self.body(startsAt: past, extra: #","confirmPastStart":"yes""#))
        #expect(badFlag.status == 400 && badFlag.text.contains("confirmPastStart"), "\(badFlag.text)")
        #expect((try app.admin("GET", "/admin/v1/events").jsonObject?["events"] as? [Any])?.isEmpty == true, "nothing was created")
        let confirmed = try app.admin("POST", "/admin/v1/events", json: Self.body(startsAt: past, extra: #","confirmPastStart":true"#))
        #expect(confirmed.status == 201, "\(confirmed.text)")
        let future = try app.admin("POST", "/admin/v1/events", json: Self.body(startsAt: Date().addingTimeInterval(86_400)))
        #expect(future.status == 201, "\(future.text)")
        // Editing an existing event into the past needs no confirmation (it was confirmed when created or is deliberate).
        let id = try #require(future.jsonObject?["id"] as? String)
        #expect(try app.admin("PATCH", "/admin/v1/events/\(id)", json: #"{"startsAt":"\#(ISODate.format(past))"}"#).status == 200)
    }

    @Test("the attendee page of an ended event says so and hides the Add to Wallet button; a running one keeps it", arguments: Backend.allCases)
    func endedPage(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let ended = try #require(try app.admin("POST", "/admin/v1/events", json: Self.body(
            startsAt: Date().addingTimeInterval(-2 * 86_400), endsAt: Date().addingTimeInterval(-86_400), extra: #","confirmPastStart":true"#
        )).jsonObject?["id"] as? String)
        let running = try #require(try app.admin("POST", "/admin/v1/events", json: Self.body(
            startsAt: Date().addingTimeInterval(-3_600), endsAt: Date().addingTimeInterval(3_600), extra: #","confirmPastStart":true"#
        )).jsonObject?["id"] as? String)
        func page(_ event: String) throws -> String {
            let serial = try app.issueTicket(event: event)
            let path = try AdminSupport.path(of: try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String)
            return try app.request("GET", path, headers: [("Accept", AttendeePageTests.browserAccept)]).text
        }
        let runningPage = try page(running)
        #expect(runningPage.contains("Add to Apple Wallet") && !runningPage.contains("This event has ended"))
        let endedPage = try page(ended)
        #expect(endedPage.contains("This event has ended."))
        #expect(!endedPage.contains("Add to Apple Wallet") && !endedPage.contains(#"href="?format=pkpass""#))
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Announcements reach Google Wallet too, against the local fake of Google's API, on both
/// backends: the event's class is written and the announcement added with Google's message call,
/// notifying (`TEXT_AND_NOTIFY`) or not; a later one replaces it; withdrawing writes the class
/// without it; an edit of the event afterwards keeps it and adds it no second time.
@Suite("Google Wallet: announcements", .offCooperativePool, .timeLimit(.minutes(5)))
struct GoogleAnnouncementTests {
    static func messages(_ fixture: GoogleFixture, _ event: String) -> [[String: Any]]? {
        fixture.fake.storedClassJSON(fixture.classID(event))?["messages"] as? [[String: Any]]
    }

    @Test("sent with Google's message call, replaced, withdrawn; an edit adds it no second time", arguments: Backend.allCases)
    func messagesAtGoogle(_ backend: Backend) async throws {
        let fixture = try await offPool { try GoogleFixture(backend) }
        defer { fixture.stop() }
        let app = fixture.app
        let event = try await offPool { try app.createEvent() }
        _ = try await offPool { try app.issueTicket(event: event) }
        try await fixture.settled()
        #expect(fixture.answered("POST", .eventTicketClass).count == 1, "the class is at Google")
        let classID = fixture.classID(event)
        func added() -> [FakeGoogleWallet.RecordedRequest] {
            fixture.fake.requests.filter { $0.method == "POST" && $0.path.hasSuffix("/addMessage") && (200..<300).contains($0.status) }
        }

        let first = try #require(try await offPool { try SchedulingSupport.announce(app, event: event, message: "Doors open at 18:00") }.jsonObject)
        try await eventually("the announcement at Google") { Self.messages(fixture, event)?.count == 1 }
        try await fixture.settled()
        #expect(added().count == 1)
        #expect(added().first.map { $0.path.contains(classID) && $0.notifying } == true, "added to the class, notifying")
        let message = try #require(Self.messages(fixture, event)?.first)
        #expect(message["body"] as? String == "Doors open at 18:00" && message["id"] as? String == first["id"] as? String)

        // An edit of the event writes the class again: the announcement stays, added once.
        #expect(try await app.adminOffPool("PATCH", "/admin/v1/events/\(event)", json: #"{"name":"Swift Night II"}"#).status == 200)
        try await eventually("the class renamed") {
            ((fixture.fake.storedClassJSON(classID)?["eventName"] as? [String: Any])?["defaultValue"] as? [String: Any])?["value"] as? String == "Swift Night II"
        }
        try await fixture.settled()
        #expect(added().count == 1, "no second message call")
        #expect(Self.messages(fixture, event)?.map { $0["body"] as? String } == ["Doors open at 18:00"])

        // A silent one replaces it (not notifying); withdrawing it leaves the class without messages.
        let second = try #require(try await offPool { try SchedulingSupport.announce(app, event: event, message: "Gate B is closed", notify: false) }.jsonObject)
        try await eventually("replaced at Google") { Self.messages(fixture, event)?.map { $0["body"] as? String } == ["Gate B is closed"] }
        try await fixture.settled()
        #expect(added().count == 2 && added().last?.notifying == false)
        let id = try #require(second["id"] as? String)
        #expect(try await app.adminOffPool("POST", "/admin/v1/events/\(event)/announcements/\(id)/withdraw").status == 200)
        try await eventually("withdrawn at Google") { Self.messages(fixture, event)?.isEmpty == true }
        try await fixture.settled()
        #expect(added().count == 2, "a withdrawal adds nothing")
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// In headless Chromium at desktop and phone widths (Tests/Browser/erase_and_past.py): an ended
/// event's attendee page, the dashboard's question before creating an event that started in the
/// past, and erasing then deleting an event from its page with the name typed.
@Suite("Web: ended events, past starts, erase and delete in a browser", .offCooperativePool, .tags(.endToEnd))
struct ErasureBrowserTests {
    @Test("ended page without the button; past start asked about; wrong name refused; erase, then delete", .timeLimit(.minutes(5)))
    func pages() async throws {
        let app = try await offPool { try DashboardBrowserTests.start() }
        defer { app.stop() }
        let setup = try await offPool { () throws -> [String: String] in
            let now = Date()
            let ended = try OrganizerSupport.createEvent(app, name: "Summer Fête", startsAt: ISODate.format(now.addingTimeInterval(-3 * 86_400)))
            #expect(try app.admin("PATCH", "/admin/v1/events/\(ended)", json: #"{"endsAt":"\#(ISODate.format(now.addingTimeInterval(-2 * 86_400)))"}"#).status == 200)
            let running = try OrganizerSupport.createEvent(app, name: "Winter Fête", startsAt: ISODate.format(now.addingTimeInterval(86_400)))
            func link(_ event: String, _ name: String) throws -> String {
                let serial = try app.issueTicket(event: event, attendee: name)
                return try AdminSupport.path(of: try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String)
            }
            let gala = try app.createEvent(name: "Erase Gala")
            _ = try app.issueTicket(event: gala, attendee: "Erin Erasable")
            return [
                "ADMIN_TOKEN": app.adminToken, "ENDED_PATH": try link(ended, "Ended Edna"), "RUNNING_PATH": try link(running, "Running Rui"),
                "EVENT_NAME": "Erase Gala", "EVENT_ID": gala, "ATTENDEE": "Erin Erasable",
            ]
        }
        try await BrowserScript.expectPasses(
            "erase_and_past.py", serverURL: app.baseURL, name: "erase-and-past", environment: setup, timeLimit: .seconds(240), keepingOutput: true
        )
        let remaining = try await offPool { try app.store.withSession(.read) { try $0.events.event(id: setup["EVENT_ID"] ?? "") } }
        #expect(remaining?.deletingAt != nil && remaining?.erasedAt != nil, "the page erased, then deleted the event")
    }
}

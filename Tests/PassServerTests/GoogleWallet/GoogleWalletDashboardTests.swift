import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// Google Wallet's reach on the dashboard's event and ticket pages: in headless Chromium at desktop
/// and phone width (Tests/Browser/dashboard_google_wallet.py), and absent without Google Wallet.
@Suite("Google Wallet on the dashboard", .offCooperativePool, .timeLimit(.minutes(5)), .tags(.endToEnd))
struct GoogleWalletDashboardTests {
    @Test("the event page counts the saved tickets beside the phones; each ticket says saved, removed or never")
    func pages() async throws {
        let fixture = try await GoogleWalletFixture.start(.postgres) {
            $0.http.publicURL = URL(string: "http://127.0.0.1")
            $0.http.allowInsecurePublicURL = true
        }
        defer { fixture.stop() }
        let setup = try await offPool { () throws -> [String: String] in
            let event = try fixture.app.createEvent(name: "Android Night")
            let saved = try fixture.app.issueTicket(event: event, attendee: "Saved Sam")
            let removed = try fixture.app.issueTicket(event: event, attendee: "Removed Rae", seat: "A2")
            let never = try fixture.app.issueTicket(event: event, attendee: "Never Nia", seat: "A3")
            let also = try fixture.app.issueTicket(event: event, attendee: "Also Saved", seat: "A4")
            for (serial, type) in [(saved, "save"), (removed, "save"), (also, "save"), (removed, "del")] {
                let response = try fixture.post(event: event, serial: serial, type: type)
                #expect(response.status == 200, "\(response.text)")
            }
            let count = try #require(try fixture.eventSaved(event))
            return [
                "ADMIN_TOKEN": fixture.app.adminToken, "EVENT_ID": event, "SAVED": saved, "REMOVED": removed, "NEVER": never,
                "EVENT_SAVED": String(count),
            ]
        }
        #expect(setup["EVENT_SAVED"] == "2")
        try await BrowserScript.expectPasses(
            "dashboard_google_wallet.py", serverURL: fixture.app.baseURL, name: "dashboard-google-wallet", environment: setup,
            timeLimit: .seconds(240), keepingOutput: true
        )
    }

    @Test("without Google Wallet neither page mentions it")
    func unconfigured() async throws {
        let app = try await TestApp.startOffPool(.sqlite)
        defer { app.stop() }
        try await offPool {
            let event = try app.createEvent()
            let serial = try app.issueTicket(event: event)
            let client = try DashboardClient.signIn(app, token: app.adminToken).client
            let eventPage = try client.get("/admin/events/\(event)").text
            #expect(eventPage.contains("count-phones"), "the event page was rendered")
            #expect(!eventPage.contains("Google Wallet"))
            let ticketPage = try client.get("/admin/tickets/\(serial)").text
            #expect(ticketPage.contains("<h2>Phones</h2>"), "the ticket page was rendered")
            #expect(!ticketPage.contains("Google Wallet"))
        }
    }
}

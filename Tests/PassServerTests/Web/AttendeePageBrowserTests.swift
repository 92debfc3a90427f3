import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

/// The attendee's page in headless Chromium at 390×844 (Tests/Browser/attendee_page.py).
@Suite("Web: the attendee's page in a browser", .offCooperativePool, .tags(.endToEnd))
struct AttendeePageBrowserTests {
    @Test("event, button and QR code on a phone; the code reads as the pass's barcode; cancelled, hostile and Japanese tickets", .timeLimit(.minutes(4)))
    func page() async throws {
        let app = try await TestApp.startOffPool(.postgres)
        defer { app.stop() }
        let hostileName = "<img src=x onerror=alert(1)>"
        let reason = "Refunded at the attendee's request"
        let (_, ticket) = try AttendeePageTests.ticket(app)
        let (cancelledSerial, cancelled) = try AttendeePageTests.ticket(app, attendee: "Grace Hopper", seat: "B2")
        let (_, hostile) = try AttendeePageTests.ticket(app, attendee: hostileName)
        let cancel = try await app.adminOffPool("POST", "/admin/v1/tickets/\(cancelledSerial)/cancel", json: #"{"reason":"\#(reason)"}"#)
        try #require(cancel.status == 200, "\(cancel.text)")
        // The barcode message as Wallet gets it: from the pass itself.
        let pass = try PassArchive.passJSON(try await app.requestOffPool("GET", ticket).body)
        let message = try #require((pass["barcodes"] as? [[String: Any]])?.first?["message"] as? String)

        try await BrowserScript.expectPasses(
            "attendee_page.py", serverURL: app.baseURL, name: "attendee-page",
            environment: [
                "TICKET_PATH": ticket, "BARCODE_MESSAGE": message, "EVENT_NAME": "Swift Night", "CANCELLED_PATH": cancelled,
                "CANCEL_REASON": reason, "HOSTILE_PATH": hostile, "HOSTILE_NAME": hostileName,
            ]
        )
    }
}

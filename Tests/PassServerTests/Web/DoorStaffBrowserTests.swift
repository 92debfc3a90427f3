import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Door staff from the dashboard in real headless Chromium (Tests/Browser/door_staff.py): the
/// sign-in QR code of a scanner access signs a fresh browser into one event's scanner page.
@Suite("Door staff in a browser", .offCooperativePool, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct DoorStaffBrowserTests {
    @Test("the QR code signs a fresh phone into its event's scanner page; another event's ticket is red; revoking signs it out")
    func doorStaff() async throws {
        let app = try await TestApp.startOffPool(.sqlite, configure: ScannerBrowserTests.browsable)
        defer { app.stop() }
        let (event, ours, theirs, setup) = try await offPool { () throws -> (String, String, String, [String: String]) in
            let event = try app.createEvent(name: "Door Night")
            let ours = try app.issueTicket(event: event, attendee: "Ada Lovelace")
            _ = try app.issueTicket(event: event, attendee: "Bo Tanaka")
            let theirs = try app.issueTicket(event: try app.createEvent(name: "Other Night"), attendee: "Other Guest")
            let codes = try Scanner(app)
            return (event, ours, theirs, [
                "ADMIN_TOKEN": app.adminToken, "EVENT_ID": event, "CODE_OURS": try codes.code(ours), "CODE_OTHER": try codes.code(theirs),
            ])
        }
        try await BrowserScript.expectPasses("door_staff.py", serverURL: app.baseURL, name: "door-staff", environment: setup, timeLimit: .seconds(240), keepingOutput: true)
        try await offPool {
            #expect(try DoorPhone.isCheckedIn(app, ours))
            #expect(try DoorPhone.isCheckedIn(app, theirs) == false)
            let accesses = try app.store.withSession(.read) { try $0.scanners.scannerAccesses(eventID: event) }
            #expect(accesses.count == 1 && accesses.first?.revokedAt != nil)
            #expect(try app.store.execute("SELECT id_hash FROM scanner_sessions").isEmpty, "revoking ended the phone's session")
        }
    }
}

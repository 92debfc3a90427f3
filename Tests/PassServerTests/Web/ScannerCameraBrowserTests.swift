import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The scanner page's camera in real headless Chromium (Tests/Browser/scanner_camera.py): a fake
/// camera (`--use-file-for-fake-video-capture`) plays a Y4M video the test makes from a ticket's QR
/// code, turned and blurred (`QRFrame`); the page reads it (with `BarcodeDetector` where Chromium
/// has one, else through `POST /admin/scan/decode`), checks the ticket in and answers in green.
/// Typed check codes in the same run: the chosen event's green, another event's red.
@Suite("Scanner page: the camera and typed check codes in a browser", .offCooperativePool, .tags(.endToEnd))
struct ScannerCameraBrowserTests {
    @Test("a filmed ticket's QR code is checked in (green), typed check codes green and red", .timeLimit(.minutes(5)), arguments: Backend.allCases)
    func camera(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend, configure: ScannerBrowserTests.browsable)
        defer { app.stop() }
        let directory = try TestCertificates.temporaryDirectory(prefix: "scanner-camera")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let video = directory + "/ticket.y4m"
        let (filmed, typed, other, setup) = try await offPool { () throws -> (String, String, String, [String: String]) in
            let event = try app.createEvent(name: "Camera Night")
            let filmed = try app.issueTicket(event: event, attendee: "Filmed Fiona", seat: "C3")
            let typed = try app.issueTicket(event: event, attendee: "Typed Tom")
            let other = try app.issueTicket(event: try app.createEvent(name: "Elsewhere"), attendee: "Other Olga")
            let scanner = try Scanner(app)
            let frame = try QRFrame(message: try scanner.code(filmed), moduleSize: 5, angle: 14, blur: 0.9, noise: 4)
            try Data(frame.y4m(frames: 10, fps: 10)).write(to: URL(fileURLWithPath: video))
            return (filmed, typed, other, [
                "SCANNER_TOKEN": scanner.token, "EVENT_ID": event, "VIDEO": video, "FILMED_NAME": "Filmed Fiona",
                "TYPED_CODE": try scanner.checkCode(typed), "TYPED_NAME": "Typed Tom", "OTHER_EVENT_CODE": try scanner.checkCode(other),
            ])
        }
        let outcome = try await BrowserScript.run(
            "scanner_camera.py", serverURL: app.baseURL, name: "scanner-camera-\(backend.rawValue)", environment: setup, timeLimit: .seconds(180)
        )
        #expect(outcome.passed, "scanner_camera.py failed (exit \(outcome.status)); screenshots in \(outcome.outputDirectory)\n\(outcome.output.suffix(8_000))")
        // Which way the page read the camera: headless Chromium on Linux has no BarcodeDetector, so
        // the frames went to the server.
        let path = outcome.output.split(separator: "\n").first { $0.hasPrefix("camera path: ") }
        #expect(path != nil, "the script did not say which path ran")
        print("scanner camera (\(backend.rawValue)): \(path ?? "?")")
        if path?.contains("BarcodeDetector: no") == true { #expect(path?.hasPrefix("camera path: server") == true) }

        let checkedIn = try await offPool {
            try [filmed, typed, other].map { try app.admin("GET", "/admin/v1/tickets/\($0)").jsonObject?["checkedInAt"] is String }
        }
        #expect(checkedIn == [true, true, false], "filmed, typed, another event's (by its check code)")
        // Once: the ticket kept in view was not scanned again.
        let scans = try await offPool { try app.request("GET", "/metrics").text }
        #expect(scans.contains(#"passserver_checkins_total{result="already_checked_in"} 0"#), "\(scans.split(separator: "\n").filter { $0.contains("checkins_total") })")
        if outcome.passed { try? FileManager.default.removeItem(atPath: outcome.outputDirectory) }
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The dashboard's acceptance in real headless Chromium (Tests/Browser/dashboard_*.py).
@Suite("Dashboard in a browser", .offCooperativePool, .timeLimit(.minutes(10)), .tags(.endToEnd))
struct DashboardBrowserTests {
    /// An app a browser on this machine can use: an http public URL, so the cookie is not Secure.
    static func start() throws -> TestApp {
        try TestApp.start(.postgres) {
            $0.http.publicURL = URL(string: "http://127.0.0.1")
            $0.http.allowInsecurePublicURL = true
        }
    }

    @Test("an organizer signs in, creates, imports, searches, renames, cancels, edits, exports and signs out")
    func organizer() async throws {
        let app = try Self.start()
        defer { app.stop() }
        try await BrowserScript.expectPasses(
            "dashboard_acceptance.py", serverURL: app.baseURL, name: "dashboard-acceptance",
            environment: [
                "ADMIN_TOKEN": app.adminToken, "TOKEN_SECRET_HEX": String(repeating: "07", count: 32), "PASS_TYPE": app.passTypeIdentifier,
            ],
            timeLimit: .seconds(300)
        )
    }

    @Test("a viewer sees no write controls and its forged POST is refused; a hostile name stays text")
    func viewer() async throws {
        let app = try Self.start()
        defer { app.stop() }
        let event = try app.createEvent(name: "Viewer Night")
        let serial = try app.issueTicket(event: event, attendee: "<img src=x onerror=alert(1)>")
        try await BrowserScript.expectPasses(
            "dashboard_viewer.py", serverURL: app.baseURL, name: "dashboard-viewer",
            environment: ["VIEWER_TOKEN": try AdminRoleTests.token(app, role: .viewer), "EVENT_ID": event, "SERIAL": serial]
        )
    }

    @Test("templates: a refused upload names every reason, an upload lands on its mapping form, a new choice saves")
    func templates() async throws {
        let app = try Self.start()
        defer { app.stop() }
        let directory = try TestCertificates.temporaryDirectory(prefix: "browser-templates")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(try DesignerFolder.archive()).write(to: URL(fileURLWithPath: directory + "/Gala.zip"))
        let broken = try DesignerFolder.zip(try DesignerFolder.files { files in
            files["pass.json"] = nil
            for scale in ["", "@2x", "@3x"] { files["icon\(scale).png"] = nil }
        })
        try Data(broken).write(to: URL(fileURLWithPath: directory + "/Broken.zip"))
        try await BrowserScript.expectPasses(
            "dashboard_templates.py", serverURL: app.baseURL, name: "dashboard-templates",
            environment: ["ADMIN_TOKEN": app.adminToken, "ZIP_PATH": directory + "/Gala.zip", "BROKEN_ZIP_PATH": directory + "/Broken.zip"],
            keepingOutput: true
        )
        let mapping = try app.admin("GET", "/admin/v1/templates/spring-gala").jsonObject?["mapping"] as? [String: String]
        #expect(mapping?["tier"] == "extra.tier", "the choice made in the browser is stored")
    }

    @Test("every page at 1280×800 and 390×844, light and dark: headline figures first, the ticket page in two columns")
    func screens() async throws {
        let app = try Self.start()
        defer { app.stop() }
        let event = try app.createEvent(name: "Autumn Jazz Night", venue: "Harbour Hall, Main Stage")
        var serial = ""
        for (name, seat) in [("Ana Sousa", "A-12"), ("Bruno Carvalho", "A-13"), ("Chloé Martin", "B-4")] {
            serial = try app.issueTicket(event: event, attendee: name, seat: seat)
        }
        let details = try app.admin("GET", "/admin/v1/tickets/\(serial)")
        let download = try AdminSupport.path(of: details.jsonObject?["downloadURL"] as? String)
        try await BrowserScript.expectPasses(
            "dashboard_screens.py", serverURL: app.baseURL, name: "dashboard-screens",
            environment: ["ADMIN_TOKEN": app.adminToken, "EVENT_ID": event, "SERIAL": serial, "DOWNLOAD_PATH": download],
            // The screenshots stay in .build/test-output/browser/dashboard-screens/ to be looked at.
            timeLimit: .seconds(300), keepingOutput: true
        )
    }

    @Test("the design page: colours, a logo and a strip seen in the preview, saved, in the issued pass byte for byte and on the attendee's page")
    func design() async throws {
        let app = try Self.start()
        defer { app.stop() }
        let event = try app.createEvent(name: "Autumn Jazz Night", venue: "Harbour Hall, Main Stage")
        try await BrowserScript.expectPasses(
            "dashboard_design.py", serverURL: app.baseURL, name: "dashboard-design", environment: ["ADMIN_TOKEN": app.adminToken, "EVENT_ID": event],
            // The screenshots stay in .build/test-output/browser/dashboard-design/ to be looked at.
            timeLimit: .seconds(300), keepingOutput: true
        )
        // The pass the script downloaded holds the stored PNGs of each scale.
        let directory = BrowserScript.outputDirectory(for: "dashboard-design")
        let bundle = try Data(contentsOf: URL(fileURLWithPath: directory + "/ticket.pkpass"))
        let ids = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/images.json"))) as? [String: String])
        let files = try PassArchive.files(Array(bundle))
        #expect(Set(ids.keys) == ["logo", "strip"])
        for (kind, id) in ids {
            let stored = try #require(try app.store.withSession(.read) { try $0.images.passImage(id: id) }, "\(kind) \(id) is not stored")
            #expect(stored.kind == kind)
            #expect(files["\(kind).png"] == stored.image1x && files["\(kind)@2x.png"] == stored.image2x && files["\(kind)@3x.png"] == stored.image3x, "\(kind)")
        }
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// `GET /`: a browser is sent to the dashboard; API clients keep the JSON 404 of an unknown path.
@Suite("The root path", .offCooperativePool, .timeLimit(.minutes(2)))
struct RootRouteTests {
    /// What Chromium sends for a page it navigates to.
    static let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8"

    @Test("a browser gets 303 to /admin/ (HEAD too); JSON clients, curl and no Accept get the JSON 404")
    func root() throws {
        let app = try TestApp.start(.sqlite)
        defer { app.stop() }
        let browser = try app.request("GET", "/", headers: [("Accept", Self.browserAccept)])
        #expect(browser.status == 303)
        #expect(browser.header("Location") == "/admin/")
        #expect(browser.header("Vary")?.contains("Accept") == true)
        let head = try app.request("HEAD", "/", headers: [("Accept", "text/html")])
        #expect(head.status == 303 && head.header("Location") == "/admin/")
        // The redirect leads to the sign-in page.
        let signIn = try app.request("GET", "/admin/", headers: [("Accept", Self.browserAccept)])
        #expect(signIn.status == 200 && signIn.text.contains("Admin token"))

        for accept in ["application/json", "*/*", nil, "text/html;q=0.5, application/json", "application/json, text/html"] as [String?] {
            let response = try app.request("GET", "/", headers: accept.map { [("Accept", $0)] } ?? [])
            #expect(response.status == 404, "Accept: \(accept ?? "(none)")")
            #expect(response.header("Location") == nil, "Accept: \(accept ?? "(none)")")
            #expect(response.errorCode == "not_found", "Accept: \(accept ?? "(none)"): \(response.text)")
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "Accept: \(accept ?? "(none)")")
        }
        // The same body as any unknown path.
        let unknown = try app.request("GET", "/no-such-path", headers: [("Accept", "application/json")])
        #expect(try app.request("GET", "/", headers: [("Accept", "application/json")]).text == unknown.text)
        // Only the root: an unknown path stays a 404 for a browser too.
        #expect(try app.request("GET", "/no-such-path", headers: [("Accept", Self.browserAccept)]).status == 404)
    }
}

import ByteEncoding
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// "Add to Google Wallet": `/download/{token}/google-wallet` redirects to Google's save link,
/// made then and signed with the service account's key (checked by the real `openssl`); before the
/// object is at Google it asks to come back; without Google Wallet the route is 404 and no page
/// has the button.
@Suite("Google Wallet: the save link", .offCooperativePool, .timeLimit(.minutes(5)), .tags(.endToEnd))
struct GoogleSaveLinkTests {
    static let html = AttendeePageTests.browserAccept

    /// The ticket's download path (`/download/{token}`).
    static func path(_ app: TestApp, serial: String) throws -> String {
        try AdminSupport.path(of: try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String)
    }

    @Test("a 302 to <save>/<jwt>: openssl verifies it, the claims are exact and name only the object", arguments: Backend.allCases)
    func redirect(_ backend: Backend) async throws {
        let fixture = try await offPool { try GoogleFixture(backend) }
        defer { fixture.stop() }
        let app = fixture.app
        let (serial, path) = try await offPool { () throws -> (String, String) in
            let serial = try app.issueTicket(event: try app.createEvent(name: "Swift Night"), attendee: "Ada Lovelace")
            return (serial, try Self.path(app, serial: serial))
        }
        try await fixture.settled()
        let before = Int(Date().timeIntervalSince1970)
        let answer = try await app.requestOffPool("GET", path + "/google-wallet", headers: [("Accept", Self.html)])
        #expect(answer.status == 302, "\(answer.text)")
        #expect(answer.header("Cache-Control") == "no-store")
        let location = try #require(answer.header("Location"))
        let prefix = fixture.fake.endpoints.save + "/"
        try #require(location.hasPrefix(prefix), "\(location)")
        let jwt = String(location.dropFirst(prefix.count))
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let directory = try TestCertificates.temporaryDirectory(prefix: "google-save")
        #expect(try Self.openSSLVerifies(parts, publicKeyFile: fixture.account.publicKeyFile, in: directory))
        #expect(try !Self.openSSLVerifies([parts[0], parts[1] + "x", parts[2]], publicKeyFile: fixture.account.publicKeyFile, in: directory), "openssl can refuse")

        let header = try Self.json(parts[0])
        #expect(header["alg"] as? String == "RS256")
        let claimBytes = try #require(Base64URL.decode(parts[1]))
        let claims = try Self.json(parts[1])
        #expect(Set(claims.keys) == ["iss", "aud", "typ", "iat", "origins", "payload"])
        #expect(claims["iss"] as? String == fixture.account.email)
        #expect(claims["aud"] as? String == "google")
        #expect(claims["typ"] as? String == "savetowallet")
        #expect(claims["origins"] as? [String] == ["https://passes.example.test"])
        let iat = try #require((claims["iat"] as? NSNumber)?.intValue)
        #expect(iat >= before - 1 && iat <= Int(Date().timeIntervalSince1970) + 1, "made when asked for")
        let payload = try #require(claims["payload"] as? [String: Any])
        #expect(Set(payload.keys) == ["eventTicketObjects"])
        let objects = try #require(payload["eventTicketObjects"] as? [[String: Any]])
        #expect(objects.count == 1 && objects.allSatisfy { Set($0.keys) == ["id"] })
        #expect(objects.first?["id"] as? String == fixture.objectID(serial))
        let text = String(decoding: claimBytes, as: UTF8.self)
        for personal in ["Ada", "Lovelace", "@example", "Swift Night"] {
            #expect(!text.contains(personal), "the token holds \(personal)")
        }

        // The page links our route; neither it nor the save link's parts are in the page.
        let page = try await app.requestOffPool("GET", path, headers: [("Accept", Self.html)])
        let token = String(path.dropFirst("/download/".count))
        #expect(page.text.contains(#"href="\#(token)/google-wallet""#), "the page's Google button")
        #expect(page.text.contains("Add to Google Wallet"))
        #expect(page.text.contains("In Apple Wallet or Google Wallet, the ticket then updates by itself"), "the hint names both wallets")
        #expect(!page.text.contains(String(parts[1])) && !page.text.contains(fixture.fake.endpoints.save) && !page.text.contains("savetowallet"))
        #expect(page.header("Vary")?.contains("User-Agent") == true)
        let japanese = try await app.requestOffPool("GET", path, headers: [("Accept", Self.html), ("Accept-Language", "ja")])
        #expect(japanese.text.contains("Google ウォレットに追加"))

        // Hostile and unknown links are answered as at the download link.
        let unknown = try await app.requestOffPool("GET", "/download/\(String(repeating: "A", count: 32))/google-wallet")
        #expect(unknown.status == 404 && unknown.jsonObject?["error"] != nil, "\(unknown.text)")
        let unknownPage = try await app.requestOffPool("GET", "/download/\(String(repeating: "A", count: 32))/google-wallet", headers: [("Accept", Self.html)])
        #expect(unknownPage.status == 404 && unknownPage.text.contains("Ticket not found"))
        for hostile in ["%3Cscript%3E", "..%2F..%2Fadmin", "x", String(repeating: "A", count: 300), "%00"] {
            let response = try await app.requestOffPool("GET", "/download/\(hostile)/google-wallet")
            #expect(response.status == 404 || response.status == 400, "\(hostile): \(response.status) \(response.text)")
        }
    }

    @Test("not at Google yet: 503 with Retry-After, a page for a browser; a cancelled ticket has no button", arguments: Backend.allCases)
    func pendingAndCancelled(_ backend: Backend) async throws {
        let fixture = try await offPool { try GoogleFixture(backend) }
        defer { fixture.stop() }
        let app = fixture.app
        let event = try await offPool { try app.createEvent() }
        let (ready, readyPath) = try await offPool { () throws -> (String, String) in
            let serial = try app.issueTicket(event: event, attendee: "Ready Rae")
            return (serial, try Self.path(app, serial: serial))
        }
        try await fixture.settled()
        // The same route answers a redirect for a ticket Google has: a 503 below is about the ticket.
        #expect(try await app.requestOffPool("GET", readyPath + "/google-wallet").status == 302)

        // Google refuses every insert from now on: the next ticket never gets there.
        for kind in [FakeGoogleWallet.Kind.batch, .eventTicketObject] {
            fixture.fake.fail(next: 10_000, method: "POST", kind: kind, with: .status(503))
        }
        let pendingPath = try await offPool { try Self.path(app, serial: try app.issueTicket(event: event, attendee: "Pending Pat", seat: "B2")) }
        try await eventually("Google was asked for the ticket and refused") { fixture.fake.requests.contains { $0.status == 503 } }
        let json = try await app.requestOffPool("GET", pendingPath + "/google-wallet")
        #expect(json.status == 503, "\(json.text)")
        #expect(json.header("Retry-After") == "30")
        #expect((json.jsonObject?["error"] as? [String: Any])?["code"] as? String == "google_wallet_pending")
        let page = try await app.requestOffPool("GET", pendingPath + "/google-wallet", headers: [("Accept", Self.html), ("Accept-Language", "ja")])
        #expect(page.status == 503)
        #expect(page.header("Retry-After") == "30")
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.text.contains("Google ウォレットの準備中です") && page.text.contains(#"href="google-wallet""#))

        // A cancelled ticket's page offers neither wallet (its Google object is inactive).
        let shown = try await app.requestOffPool("GET", readyPath, headers: [("Accept", Self.html)])
        #expect(shown.text.contains("Add to Google Wallet"), "the button could be shown")
        #expect(try await app.adminOffPool("POST", "/admin/v1/tickets/\(ready)/cancel").status == 200)
        let cancelled = try await app.requestOffPool("GET", readyPath, headers: [("Accept", Self.html)])
        #expect(cancelled.text.contains("This ticket has been cancelled."))
        #expect(!cancelled.text.contains("Add to Google Wallet") && !cancelled.text.contains("google-wallet"))
        #expect(!cancelled.text.contains("Add to Apple Wallet"))
    }

    @Test("without Google Wallet: the route is 404 JSON and the page has no Google button", arguments: Backend.allCases)
    func unconfigured(_ backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let (_, path) = try await offPool { try AttendeePageTests.ticket(app) }
        for accept in [Self.html, "*/*"] {
            let answer = try await app.requestOffPool("GET", path + "/google-wallet", headers: [("Accept", accept)])
            #expect(answer.status == 404, "\(answer.text)")
            #expect((answer.jsonObject?["error"] as? [String: Any])?["code"] as? String == "not_found")
        }
        let page = try await app.requestOffPool("GET", path, headers: [("Accept", Self.html), ("User-Agent", "Mozilla/5.0 (Linux; Android 14)")])
        #expect(page.text.contains("Add to Apple Wallet"), "the page was rendered with its wallet buttons")
        #expect(!page.text.contains("Google"))
    }

    @Test("in Chromium: Android gets the Google button first, a desktop after Apple, no Google Wallet none")
    func browser() async throws {
        let fixture = try await offPool { try GoogleFixture(.sqlite) }
        defer { fixture.stop() }
        let plain = try await TestApp.startOffPool(.sqlite)
        defer { plain.stop() }
        let path = try await offPool { try AttendeePageTests.ticket(fixture.app).path }
        let plainPath = try await offPool { try AttendeePageTests.ticket(plain).path }
        try await fixture.settled()
        for kind in [FakeGoogleWallet.Kind.batch, .eventTicketObject] {
            fixture.fake.fail(next: 10_000, method: "POST", kind: kind, with: .status(503))
        }
        let pendingPath = try await offPool { try AttendeePageTests.ticket(fixture.app, attendee: "Pending Pat").path }
        try await BrowserScript.expectPasses(
            "attendee_google_wallet.py", serverURL: fixture.app.baseURL, name: "attendee-google-wallet",
            environment: [
                "TICKET_PATH": path, "PLAIN_URL": plain.baseURL + plainPath, "PENDING_PATH": pendingPath, "SAVE_URL": fixture.fake.endpoints.save,
            ],
            timeLimit: .seconds(240), keepingOutput: true
        )
    }

    static func json(_ part: Substring) throws -> [String: Any] {
        let bytes = try #require(Base64URL.decode(part))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// Whether `openssl dgst -sha256 -verify` accepts the JWT's signature over its first two parts.
    static func openSSLVerifies(_ parts: [Substring], publicKeyFile: String, in directory: String) throws -> Bool {
        let name = "\(directory)/\(UUID().uuidString)"
        try Data("\(parts[0]).\(parts[1])".utf8).write(to: URL(fileURLWithPath: name + ".input"))
        try Data(try #require(Base64URL.decode(parts[2]))).write(to: URL(fileURLWithPath: name + ".sig"))
        let result = try run("openssl", ["dgst", "-sha256", "-verify", publicKeyFile, "-signature", name + ".sig", name + ".input"])
        return result.status == 0 && result.output.contains("Verified OK")
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The dashboard over plain HTTP: the session cookie's flags, CSRF, roles, expiry, signing out,
/// and escaping, on both stores.
@Suite("Dashboard: sessions, CSRF and roles", .offCooperativePool, .timeLimit(.minutes(3)))
struct DashboardSessionTests {
    static let hostile = "<img src=x onerror=alert(1)>"

    /// The session id of a `name=id` cookie.
    static func sessionID(_ cookie: String) -> String {
        String(cookie.split(separator: "=", maxSplits: 1).last ?? "")
    }

    @Test("signing in sets an HttpOnly, SameSite=Strict, Secure __Host- session cookie stored only hashed", arguments: Backend.allCases)
    func signInCookie(backend: Backend) throws {
        let app = try TestApp.start(backend) { $0.dashboard.sessionTTL = 3_600 }
        defer { app.stop() }
        let (refusedClient, refused) = try DashboardClient.signIn(app, token: "psa_not-a-real-token-at-all-000000000000000")
        #expect(refused.status == 401)
        #expect(refusedClient.cookie == nil)

        let (client, response) = try DashboardClient.signIn(app, token: app.adminToken)
        #expect(response.status == 303)
        #expect(response.header("Location") == "/admin/")
        // A `__Host-` cookie: Secure, Path=/, no Domain (a browser refuses it otherwise).
        let header = try #require(DashboardClient.setCookieHeader(response, "__Host-ps_session"))
        let attributes = Set(header.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(attributes == ["Path=/", "Max-Age=3600", "HttpOnly", "SameSite=Strict", "Secure"])
        #expect(DashboardClient.setCookieHeader(response, "ps_session") == nil, "no unprefixed cookie")
        let id = try #require(DashboardClient.setCookie(response, "__Host-ps_session"))
        let stored = try app.store.execute("SELECT id_hash, expires_at, created_at FROM admin_sessions")
        #expect(stored.count == 1)
        #expect(try stored[0].bytes("id_hash") == TokenVault.hash(id))
        #expect(try stored[0].int64("expires_at") - stored[0].int64("created_at") == 3_600_000)
        let page = try client.get("/admin/")
        #expect(page.status == 200)
        #expect(page.text.contains("<h1>Events</h1>"))
        expectSecurityHeaders(page, "events page")
    }

    @Test("an http PUBLIC_URL gives a cookie without Secure")
    func insecureCookie() throws {
        let app = try TestApp.start(.sqlite) {
            $0.http.publicURL = URL(string: "http://127.0.0.1")
            $0.http.allowInsecurePublicURL = true
        }
        defer { app.stop() }
        let (_, response) = try DashboardClient.signIn(app, token: app.adminToken)
        let header = try #require(DashboardClient.setCookieHeader(response, "ps_session"))
        let attributes = Set(header.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(attributes == ["Path=/admin", "Max-Age=43200", "HttpOnly", "SameSite=Strict"])
        #expect(DashboardClient.setCookieHeader(response, "__Host-ps_session") == nil, "a browser would refuse a __Host- cookie without Secure")
    }

    @Test("a POST without the CSRF token, or with another session's, is 403 and changes nothing", arguments: Backend.allCases)
    func csrfRequired(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let (client, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let (other, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let fields = [("name", "Forged"), ("venue", "Hall"), ("startsAt", "2027-03-01T19:00"), ("timeZone", "UTC"), ("template", "event-ticket"), ("language", "en")]
        #expect(try client.post("/admin/events", fields, csrf: nil).status == 403)
        #expect(try client.post("/admin/events", fields, csrf: other.csrf(on: "/admin/")).status == 403)
        #expect(try client.post("/admin/events", fields, csrf: "x").status == 403)
        #expect(try app.store.execute("SELECT id FROM events").isEmpty)
        // The same form with its own token works (so the refusals above were about the token).
        let created = try client.post("/admin/events", fields, csrf: client.csrf(on: "/admin/"))
        #expect(created.status == 303)
        #expect(try app.store.execute("SELECT id FROM events").count == 1)
    }

    @Test("a viewer sees the pages without write controls, and its POSTs are 403", arguments: Backend.allCases)
    func viewer(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let (viewer, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .viewer))
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        for page in ["/admin/", "/admin/events/\(event)", "/admin/tickets/\(serial)"] {
            let asAdmin = try admin.get(page)
            let asViewer = try viewer.get(page)
            #expect(asViewer.status == 200, "\(page)")
            // Write controls: forms that post and links to the forms. An admin's page has some; a
            // viewer's has none but signing out.
            let controls = { (html: String) in
                html.matches(of: /method="post" action="([^"]+)"|href="([^"]*\/(?:new|edit))"/).map { String($0.1 ?? $0.2 ?? "") }
            }
            #expect(controls(asAdmin.text).count > 1, "\(page)")
            #expect(controls(asViewer.text) == ["/admin/sign-out"], "\(page)")
        }
        #expect(try viewer.get("/admin/events/new").status == 403)
        let csrf = try viewer.csrf(on: "/admin/")
        let forged: [(String, [(String, String)])] = [
            ("/admin/events/\(event)/tickets", [("attendeeName", "Mallory")]),
            ("/admin/tickets/\(serial)/cancel", [("confirm", "yes"), ("reason", "forged")]),
            ("/admin/tickets/\(serial)", [("attendeeName", "Mallory")]),
            ("/admin/events/\(event)/archive", [("archived", "true")]),
        ]
        for (target, fields) in forged {
            #expect(try viewer.post(target, fields, csrf: csrf).status == 403, "\(target)")
        }
        let ticket = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        #expect(ticket["status"] as? String == "active")
        #expect(ticket["attendeeName"] as? String == "Ada Lovelace")
        // An admin's same POST does change the ticket.
        #expect(try admin.post("/admin/tickets/\(serial)/cancel", [("confirm", "yes"), ("reason", "real")], csrf: admin.csrf(on: "/admin/")).status == 303)
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["status"] as? String == "cancelled")
        // A scanner token's session reaches the scanner page only (ScannerPageTests).
        let (scannerClient, scanner) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .scanner))
        #expect(scanner.status == 303 && scanner.header("Location") == "/admin/scan")
        #expect(try scannerClient.get("/admin/tickets/\(serial)").header("Location") == "/admin/")
    }

    @Test("an expired session and a signed-out one no longer work; the sweep deletes expired sessions", arguments: Backend.allCases)
    func expiryAndSignOut(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let (first, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let (second, _) = try DashboardClient.signIn(app, token: app.adminToken)
        #expect(try first.get("/admin/events/new").status == 200)

        // Expire the first session only.
        let firstHash = try TokenVault.hash(Self.sessionID(try #require(first.cookie)))
        try app.store.withSession(.write) { _ = try $0.execute("UPDATE admin_sessions SET expires_at = 1 WHERE id_hash = \(firstHash)") }
        let expired = try first.get("/admin/events/new")
        #expect(expired.status == 303 && expired.header("Location") == "/admin/")
        #expect(try first.post("/admin/sign-out", [], csrf: "anything").status == 403)
        #expect(try second.get("/admin/events/new").status == 200)
        // The expired row goes and the live one stays. The server's own retention sweep may run
        // first (it sweeps at start), so the count this call removes is 1 or 0; the rows are what
        // must hold.
        let removed = try app.store.withSession(.write) { try $0.admin.deleteExpiredAdminSessions(before: Date(), limit: 100) }
        #expect(removed <= 1)
        let secondHash = try TokenVault.hash(Self.sessionID(try #require(second.cookie)))
        let left = try app.store.execute("SELECT id_hash FROM admin_sessions").map { try $0.bytes("id_hash") }
        #expect(left == [secondHash], "only the live session is left")

        // Signing out deletes the session: the old cookie is refused afterwards.
        let out = try second.post("/admin/sign-out", [], csrf: second.csrf(on: "/admin/"))
        #expect(out.status == 303)
        #expect(DashboardClient.setCookieHeader(out, "__Host-ps_session")?.contains("Max-Age=0") == true)
        #expect(try app.store.execute("SELECT id_hash FROM admin_sessions").isEmpty)
        let after = try second.get("/admin/events/new")
        #expect(after.status == 303 && after.header("Location") == "/admin/")
        #expect(try second.get("/admin/").text.contains("Admin token"))
        #expect(try second.post("/admin/events", [("name", "x")], csrf: "whatever").status == 403)
        let progress = try second.get("/admin/jobs/abc/progress")
        #expect(progress.status == 401)
    }

    @Test("revoking the token ends its sessions", arguments: Backend.allCases)
    func revokedToken(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let token = try AdminRoleTests.token(app, role: .viewer)
        let (client, _) = try DashboardClient.signIn(app, token: token)
        #expect(try client.get("/admin/").text.contains("<h1>Events</h1>"))
        let name = try #require(try app.store.withSession(.read) { try $0.admin.adminTokens() }.first { $0.role == .viewer }?.name)
        _ = try app.store.withSession(.write) { try $0.admin.revokeAdminToken(idOrName: name, now: Date()) }
        #expect(try client.get("/admin/").text.contains("Admin token"))
    }

    @Test("names with markup are shown as text on every page", arguments: Backend.allCases)
    func escaping(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let (client, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let created = try client.post(
            "/admin/events",
            [("name", Self.hostile), ("venue", Self.hostile), ("startsAt", "2027-03-01T19:00"), ("timeZone", "Asia/Tokyo"),
             ("template", "event-ticket"), ("language", "en")],
            csrf: client.csrf(on: "/admin/")
        )
        #expect(created.status == 303)
        let location = try #require(created.header("Location"))
        let event = String(try #require(location.firstMatch(of: /events\/([A-Za-z0-9_-]+)/)?.1))
        let issued = try client.post(
            "/admin/events/\(event)/tickets", [("attendeeName", Self.hostile), ("seat", "\"><script>alert(2)</script>")],
            csrf: client.csrf(on: "/admin/")
        )
        #expect(issued.status == 303)
        let ticketPath = try #require(issued.header("Location")?.split(separator: "?").first.map(String.init))
        let csv = "attendeeName,seat\n\(Self.hostile),A1\n,B2\n"
        let preview = try client.post("/admin/events/\(event)/import", [("csv", csv), ("step", "check")], csrf: client.csrf(on: "/admin/"))
        #expect(preview.status == 200)
        #expect(preview.text.contains("attendeeName: is required"))
        for (name, page) in [
            ("events", try client.get("/admin/?when=all")), ("event", try client.get("/admin/events/\(event)")),
            ("edit", try client.get("/admin/events/\(event)/edit")), ("ticket", try client.get(ticketPath)),
            ("search", try client.get("/admin/events/\(event)?q=%3Cimg")), ("preview", preview),
        ] {
            #expect(page.status == 200, "\(name)")
            #expect(page.text.contains("&lt;img src=x onerror=alert(1)&gt;"), "\(name) does not show the name")
            #expect(!page.text.contains("<img src=x"), "\(name) has the markup unescaped")
            #expect(!page.text.contains("<script>alert"), "\(name) has a script unescaped")
        }
    }

    @Test("the CSV import shows every row's problems and issues nothing until all are valid", arguments: Backend.allCases)
    func importPreview(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let (client, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let csrf = try client.csrf(on: "/admin/")
        let broken = "attendeeName,attendeeEmail\nAda,ada@example.org\nBob,not-an-address\n"
        // Even asked to issue, a file with a broken row issues nothing and shows the row.
        let refused = try client.post("/admin/events/\(event)/import", [("csv", broken), ("step", "issue")], csrf: csrf)
        #expect(refused.status == 200)
        #expect(refused.text.contains("1 of 2 rows are invalid"))
        #expect(refused.text.contains("attendeeEmail: "))
        #expect(try app.store.execute("SELECT id FROM passes").isEmpty)
        let fixed = broken.replacingOccurrences(of: "not-an-address", with: "bob@example.org")
        let checked = try client.post("/admin/events/\(event)/import", [("csv", fixed), ("step", "check")], csrf: csrf)
        #expect(checked.text.contains("All 2 rows are valid"))
        #expect(try app.store.execute("SELECT id FROM passes").isEmpty)
        let issued = try client.post("/admin/events/\(event)/import", [("csv", fixed), ("step", "issue")], csrf: csrf)
        #expect(issued.status == 303)
        #expect(issued.header("Location") == "/admin/events/\(event)?notice=imported&count=2")
        #expect(try app.store.execute("SELECT id FROM passes").count == 2)
        let export = try client.get("/admin/events/\(event)/tickets.csv")
        #expect(export.status == 200)
        #expect(export.text.contains("bob@example.org"))
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Every form route of the dashboard decides from its headers whether it will read a body: each
/// `POST` the application serves under `/admin/` (the admin API's `/admin/v1/` has its own,
/// `AdminEarlyRefusalTests`) is sent the head of a 1 MiB upload with `Expect: 100-continue`, and
/// a refusal must come instead of `100 Continue`, the page or JSON the route answers today.
@Suite("Dashboard: every form refused from its headers", .offCooperativePool, .timeLimit(.minutes(3)))
struct DashboardPreflightTests {
    static let bodySize = 1 << 20

    /// Sends the head of a `bodySize` upload to `target` with these cookies and returns the first
    /// answer; when it is `100 Continue`, also sends the body and returns the final answer too.
    static func upload(
        _ app: TestApp, _ target: String, cookie: String?, size: Int = bodySize, contentType: String = "application/x-www-form-urlencoded",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (first: TestResponse, final: TestResponse?) {
        let client = try TestClient(port: app.port, timeout: 10)
        client.send(
            "POST \(target) HTTP/1.1\r\nHost: x\r\n" + (cookie.map { "Cookie: \($0)\r\n" } ?? "")
                + "Content-Type: \(contentType)\r\nContent-Length: \(size)\r\nExpect: 100-continue\r\n\r\n"
        )
        let first = try #require(try client.readResponse(), "no answer to the head of \(target)", sourceLocation: sourceLocation)
        guard first.status == 100 else { return (first, nil) }
        client.send([UInt8](repeating: 0x61, count: size))
        return (first, try client.readResponse())
    }

    /// The dashboard's form routes with their parameters filled in.
    static func formTargets(_ app: TestApp, event: String, serial: String) -> [String] {
        app.application.routes.filter { $0.method == "POST" && $0.pattern.hasPrefix("/admin/") && !$0.pattern.hasPrefix("/admin/v1/") }
            .map { $0.pattern.replacingOccurrences(of: ":eventId", with: event).replacingOccurrences(of: ":serialNumber", with: serial) }
    }

    @Test("every dashboard POST without a session is refused before its body: the signed-out page (JSON 401 for the scanner's calls)", arguments: Backend.allCases)
    func everyFormNeedsASessionBeforeItsBody(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let targets = Self.formTargets(app, event: event, serial: serial)
        // Every form the dashboard has, the sign-in forms (tokens, door-staff links) and the scanner's three calls among them.
        #expect(targets.count == 36, "\(targets)")
        let forged = "\(DashboardSessions.cookieName(secure: true))=\(Crypto.randomToken(bytes: 32))"
        for target in targets where !["/admin/sign-in", "/admin/s/:code"].contains(target) {
            for cookie in [nil, forged] {
                let (first, _) = try Self.upload(app, target, cookie: cookie)
                if target.hasPrefix("/admin/scan/") {
                    #expect(first.status == 401 && first.errorCode == "signed_out", "\(target): \(first.status)")
                } else {
                    #expect(first.status == 403, "\(target): \(first.status)")
                    #expect(first.header("Content-Type")?.hasPrefix("text/html") == true && first.text.contains("not signed in"), "\(target)")
                }
            }
        }
        // Sign-in has no session yet: without its form's cookie it is refused from the headers,
        // and with it its body is small.
        let (noChallenge, _) = try Self.upload(app, "/admin/sign-in", cookie: nil)
        #expect(noChallenge.status == 403 && noChallenge.text.contains("out of date"))
        let form = try app.request("GET", "/admin/")
        let challenge = try #require(DashboardClient.setCookie(form, DashboardSessions.signInCookieName(secure: true)))
        let (tooLarge, _) = try Self.upload(app, "/admin/sign-in", cookie: "\(DashboardSessions.signInCookieName(secure: true))=\(challenge)")
        #expect(tooLarge.status == 413)
        #expect(try app.store.execute("SELECT id FROM events").count == 1, "nothing was created")
    }

    @Test("every dashboard GET that declares a body is refused from its headers, a plain GET still answered", arguments: [Backend.sqlite])
    func pagesTakeNoBody(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let pages = app.application.routes.filter { $0.method == "GET" && ($0.pattern == "/admin" || $0.pattern.hasPrefix("/admin/")) && !$0.pattern.hasPrefix("/admin/v1/") }
            .map { $0.pattern.replacingOccurrences(of: ":eventId", with: event).replacingOccurrences(of: ":serialNumber", with: serial).replacingOccurrences(of: ":jobId", with: "job_1")
                .replacingOccurrences(of: ":imageId", with: String(repeating: "0", count: 64)) }
        #expect(pages.count == 21, "\(pages)")
        for page in pages {
            let client = try TestClient(port: app.port, timeout: 10)
            client.send("GET \(page) HTTP/1.1\r\nHost: x\r\nContent-Length: \(Self.bodySize)\r\nExpect: 100-continue\r\n\r\n")
            #expect(try client.readResponse()?.status == 413, "\(page)")
            // Without a body the same page answers as always (a page, a redirect, a 401, or the
            // page of a door-staff link that is no link).
            let plain = try app.request("GET", page)
            #expect([200, 303, 401].contains(plain.status) || (page == "/admin/s/:code" && plain.status == 404), "\(page): \(plain.status)")
        }
    }

    @Test("a viewer's form, an import into an unknown event and an oversized import are refused before the body; an admin's form is read", arguments: Backend.allCases)
    func refusalsOfSignedInVisitors(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let (viewer, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .viewer))
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)

        for target in Self.formTargets(app, event: event, serial: serial) where !["/admin/sign-in", "/admin/sign-out", "/admin/s/:code"].contains(target) && !target.hasPrefix("/admin/scan/") {
            let (first, _) = try Self.upload(app, target, cookie: viewer.cookie)
            #expect(first.status == 403 && first.text.contains("needs an admin token"), "\(target): \(first.status)")
        }
        let (unknown, _) = try Self.upload(app, "/admin/events/no-such-event/import", cookie: admin.cookie)
        #expect(unknown.status == 404 && unknown.header("Content-Type")?.hasPrefix("text/html") == true, "\(unknown.status)")
        let (oversized, _) = try Self.upload(app, "/admin/events/\(event)/import", cookie: admin.cookie, size: DashboardController.importBodyLimit + 1)
        #expect(oversized.status == 413 && oversized.text.contains("split the file"), "\(oversized.status)")

        // Control: the same head from the admin's session is asked for its body, which is read
        // (the handler then refuses the form: it has no CSRF token).
        let (first, final) = try Self.upload(app, "/admin/events/\(event)/import", cookie: admin.cookie)
        #expect(first.status == 100)
        #expect(final?.status == 400 || final?.status == 403, "\(String(describing: final?.status))")
        let (archiveFirst, archiveFinal) = try Self.upload(app, "/admin/events/\(event)/archive", cookie: admin.cookie)
        #expect(archiveFirst.status == 100)
        #expect(archiveFinal?.status == 403 && archiveFinal?.text.contains("out of date") == true, "the CSRF check runs on the body")
    }
}

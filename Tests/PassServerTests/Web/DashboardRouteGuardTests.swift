import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Every dashboard `POST`, enumerated from the router (a form added later is covered without
/// changing this test): a viewer's session with its valid CSRF token, an admin's session without
/// the token or with a wrong one, and no session at all are refused and change nothing in the
/// database; the same request from the admin with its token is not refused, and (for the forms
/// this test knows) does change something. Then the sign-in form's own double-submit check.
@Suite("Dashboard: every form's guard", .offCooperativePool, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct DashboardRouteGuardTests {
    /// The rows a form could change, as text: every column of every table below, rows sorted.
    /// Left out: tables that background workers write by themselves (tallies, reach, leases, logs).
    static let tables = [
        "events", "passes", "jobs", "registrations", "devices", "push_outbox", "checkins", "mail_outbox", "ticket_emails",
        "admin_sessions", "admin_tokens", "counters", "pass_templates", "scanner_access", "scanner_sessions",
    ]

    static func snapshot(_ app: TestApp) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        let postgres = app.databaseURL.hasPrefix("postgres")
        for table in tables {
            let columns: [String] = try app.store.execute(
                postgres
                    ? "SELECT column_name AS name FROM information_schema.columns WHERE table_name = \(table) AND table_schema = current_schema() ORDER BY ordinal_position"
                    : "SELECT name FROM pragma_table_info(\(table)) ORDER BY cid"
            ).map { try $0.string("name") }
            guard !columns.isEmpty else { throw AdminSupport.Failure(description: "no columns found for table \(table)") }
            let rows = try app.store.execute("SELECT * FROM \(unsafeRaw: table)")
            result[table] = rows.map { row in columns.map { "\($0)=\(row[$0].map { "\($0)" } ?? "?")" }.joined(separator: " ") }.sorted()
        }
        return result
    }

    /// Tables whose rows differ between two snapshots.
    static func changed(_ before: [String: [String]], _ after: [String: [String]]) -> [String] {
        tables.filter { before[$0] != after[$0] }
    }

    /// One dashboard POST made concrete: its path and a body that an admin's session with its
    /// token would have carried out (so a refusal is about who sent it and with which token).
    struct Call {
        var path: String
        /// Form fields; nil for the scanner page's JSON calls.
        var form: [(String, String)]?
        var json: String?
        /// Whether the admin's call is known to change a row (false for routes this test does
        /// not know: those are only required not to be refused).
        var changes: Bool
    }

    /// The scanner page's calls: JSON with the CSRF token in `X-CSRF-Token`.
    static func isJSON(_ pattern: String) -> Bool { pattern.hasPrefix("/admin/scan/") }

    /// Forms a viewer's session may send (with its token): signing out.
    static let viewerMay: Set<String> = ["/admin/sign-out"]

    /// The forms this test knows, in the order their positive controls run (each changes
    /// something the next still needs: signing out comes last, it ends the admin's session).
    static let known = [
        "/admin/templates/:templateName/mapping", "/admin/events/:eventId/tickets", "/admin/events/:eventId/import", "/admin/events/:eventId/edit", "/admin/tickets/:serialNumber",
        "/admin/tickets/:serialNumber/email", "/admin/events/:eventId/email", "/admin/tickets/:serialNumber/download-link",
        "/admin/tickets/:serialNumber/checkin/undo",
        "/admin/scan/checkins", "/admin/scan/checkins:batch", "/admin/tickets/:serialNumber/cancel", "/admin/events/:eventId/design",
        "/admin/events/:eventId/door-staff", "/admin/events/:eventId/archive", "/admin/events", "/admin/templates", "/admin/events/:eventId/erase",
        "/admin/events/:eventId/delete", "/admin/sign-out",
    ]

    struct Fixture {
        var event: String
        /// Changed by the ticket forms.
        var serial: String
        /// Scanned by the scanner page's single scan, and by its batch.
        var scanCode: String
        var batchCode: String
        /// An uploaded template, whose mapping form is changed.
        var template: String
    }

    static func call(_ pattern: String, _ fixture: Fixture) -> Call {
        let path = pattern.replacingOccurrences(of: ":eventId", with: fixture.event).replacingOccurrences(of: ":serialNumber", with: fixture.serial)
            .replacingOccurrences(of: ":templateName", with: fixture.template)
        switch pattern {
        case "/admin/templates/:templateName/mapping": return Call(path: path, form: [("mapping.holder", "serialNumber")], changes: true)
        // The upload's archive is a multipart file part (DashboardTemplatesTests uploads one): without it the form is refused as incomplete.
        case "/admin/templates": return Call(path: path, form: [("name", "forged")], changes: false)
        case "/admin/events":
            return Call(path: path, form: [
                ("name", "Forged Night"), ("venue", "Hall"), ("startsAt", "2027-03-01T19:00"), ("timeZone", "UTC"), ("template", "event-ticket"), ("language", "en"),
            ], changes: true)
        case "/admin/events/:eventId/edit":
            return Call(path: path, form: [
                ("name", "Swift Night"), ("venue", "Elsewhere Hall"), ("startsAt", "2027-03-01T19:00"), ("timeZone", "Asia/Tokyo"),
                ("template", "event-ticket"), ("language", "en"),
            ], changes: true)
        case "/admin/events/:eventId/archive": return Call(path: path, form: [("archived", "true")], changes: true)
        case "/admin/events/:eventId/door-staff": return Call(path: path, form: [("name", "Forged gate")], changes: true)
        // The event's name typed (`app.createEvent()`'s), as the organizer confirms.
        case "/admin/events/:eventId/erase": return Call(path: path, form: [("confirmErase", "Swift Night")], changes: true)
        case "/admin/events/:eventId/delete": return Call(path: path, form: [("confirmDelete", "Swift Night")], changes: true)
        case "/admin/events/:eventId/design": return Call(path: path, form: [("backgroundColor", "#102030"), ("logoText", "Forged")], changes: true)
        case "/admin/events/:eventId/tickets": return Call(path: path, form: [("attendeeName", "Mallory"), ("seat", "Z9")], changes: true)
        case "/admin/events/:eventId/import":
            return Call(path: path, form: [("csv", "attendeeName,seat\nImported One,I1\n"), ("step", "issue")], changes: true)
        case "/admin/events/:eventId/email", "/admin/tickets/:serialNumber/email", "/admin/sign-out": return Call(path: path, form: [], changes: true)
        case "/admin/tickets/:serialNumber": return Call(path: path, form: [("attendeeName", "Mallory Renamed")], changes: true)
        case "/admin/tickets/:serialNumber/cancel": return Call(path: path, form: [("confirm", "yes"), ("reason", "forged")], changes: true)
        case "/admin/tickets/:serialNumber/download-link": return Call(path: path, form: [("confirm", "yes")], changes: true)
        // The fixture's ticket is not checked in: the undo leaves it as it is (AttendanceTests undoes one).
        case "/admin/tickets/:serialNumber/checkin/undo": return Call(path: path, form: [("confirm", "yes")], changes: false)
        case "/admin/scan/checkins": return Call(path: path, json: #"{"code":\#(Scanner.quoted(fixture.scanCode)),"gate":"Main"}"#, changes: true)
        case "/admin/scan/checkins:batch":
            let at = ISODate.format(Date().addingTimeInterval(-60))
            return Call(path: path, json: #"{"scans":[{"code":\#(Scanner.quoted(fixture.batchCode)),"scannedAt":"\#(at)"}]}"#, changes: true)
        default:
            return isJSON(pattern) ? Call(path: path, json: "{}", changes: false) : Call(path: path, form: [], changes: false)
        }
    }

    /// Sends `call` with `cookie` (nil: none) and `csrf` (nil: none), in the form or the header.
    static func send(_ app: TestApp, _ call: Call, cookie: String?, csrf: String?) throws -> TestResponse {
        var headers: [(String, String)] = []
        if let cookie { headers.append(("Cookie", cookie)) }
        if let json = call.json {
            headers.append(("Content-Type", "application/json"))
            if let csrf { headers.append(("X-CSRF-Token", csrf)) }
            return try app.request("POST", call.path, headers: headers, body: Array(json.utf8))
        }
        var fields = call.form ?? []
        if let csrf { fields.append(("csrf", csrf)) }
        headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        return try app.request("POST", call.path, headers: headers, body: Array(DashboardClient.encode(fields).utf8))
    }

    static func start(_ backend: Backend) throws -> TestApp {
        // Email on (to a server that never answers: the messages only need to be queued), so the
        // email forms have something to change.
        try TestApp.start(backend) {
            $0.mail.smtpURL = "smtp://127.0.0.1:9"
            $0.mail.allowPlaintext = true
            $0.mail.from = "tickets@example.org"
        }
    }

    @Test("viewer with its token, admin without or with a wrong token, no session: 403 (401) and no row changed; the admin with its token is not refused", arguments: Backend.allCases)
    func everyForm(backend: Backend) throws {
        let app = try Self.start(backend)
        defer { app.stop() }
        let posts = app.application.routes.filter { $0.method == "POST" && $0.pattern.hasPrefix("/admin/") && !$0.pattern.hasPrefix("/admin/v1/") }
            .map(\.pattern)
        // The enumeration finds the forms there are today (the sign-in form is tested below).
        #expect(Set(Self.known).isSubset(of: Set(posts)), "known forms missing from the router: \(Set(Self.known).subtracting(posts).sorted())")
        #expect(posts.contains("/admin/sign-in"))
        // The sign-in forms (a token's, a door-staff link's) have no session yet: their own double-submit check.
        let guarded = posts.filter { $0 != "/admin/sign-in" && $0 != "/admin/s/:code" }
        // Signing out ends the admin's session: it runs last, after the forms this test does not know.
        let signOut = "/admin/sign-out"
        let ordered = Self.known.filter { guarded.contains($0) && $0 != signOut } + guarded.filter { !Self.known.contains($0) } + [signOut]
        #expect(ordered.count >= 13)

        let event = try app.createEvent()
        let serial = try Self.issue(app, event: event, name: "Ada Lovelace")
        let scanned = try Self.issue(app, event: event, name: "Bo Tanaka")
        let batched = try Self.issue(app, event: event, name: "Chloé Martin")
        let codes = try Scanner(app)
        try #require(try DesignerFolder.upload(app, try DesignerFolder.archive(), name: "gala").status == 201)
        let fixture = Fixture(event: event, serial: serial, scanCode: try codes.code(scanned), batchCode: try codes.code(batched), template: "gala")

        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let (otherAdmin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let (viewer, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .viewer))
        let adminCSRF = try admin.csrf(on: "/admin/")
        let otherCSRF = try otherAdmin.csrf(on: "/admin/")
        let viewerCSRF = try viewer.csrf(on: "/admin/")
        #expect(adminCSRF != otherCSRF && adminCSRF != viewerCSRF, "each session has its own token")

        let before = try Self.snapshot(app)
        for pattern in ordered {
            let call = Self.call(pattern, fixture)
            if !Self.viewerMay.contains(pattern) {
                let asViewer = try Self.send(app, call, cookie: viewer.cookie, csrf: viewerCSRF)
                #expect(asViewer.status == 403, "viewer with its token: \(pattern): \(asViewer.status) \(asViewer.text.prefix(300))")
            }
            for (label, csrf) in [("no token", nil), ("another session's token", otherCSRF), ("a changed token", "x" + adminCSRF.dropFirst()), ("an empty token", "")] as [(String, String?)] {
                let asAdmin = try Self.send(app, call, cookie: admin.cookie, csrf: csrf)
                #expect(asAdmin.status == 403, "admin with \(label): \(pattern): \(asAdmin.status) \(asAdmin.text.prefix(300))")
            }
            let anonymous = try Self.send(app, call, cookie: nil, csrf: adminCSRF)
            #expect([401, 403].contains(anonymous.status), "no session: \(pattern): \(anonymous.status)")
        }
        #expect(Self.changed(before, try Self.snapshot(app)) == [], "a refused form changed rows")

        // The positive controls: the same calls from the admin's session with its token.
        for pattern in ordered {
            let call = Self.call(pattern, fixture)
            let prior = try Self.snapshot(app)
            let response = try Self.send(app, call, cookie: admin.cookie, csrf: adminCSRF)
            #expect(![401, 403].contains(response.status), "admin with its token: \(pattern): \(response.status) \(response.text.prefix(300))")
            if call.changes {
                #expect(response.status < 400, "admin with its token: \(pattern): \(response.status) \(response.text.prefix(300))")
                #expect(!Self.changed(prior, try Self.snapshot(app)).isEmpty, "admin with its token changed nothing: \(pattern)")
            }
        }
    }

    static func issue(_ app: TestApp, event: String, name: String) throws -> String {
        let response = try app.admin(
            "POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"\#(name)","attendeeEmail":"guest@example.org"}"#
        )
        guard response.status == 201, let serial = response.jsonObject?["serialNumber"] as? String else {
            throw AdminSupport.Failure(description: "ticket not issued: \(response.status) \(response.text)")
        }
        return serial
    }

    // MARK: The sign-in form

    /// A fresh sign-in form: its cookie's name, the cookie's value and the form's CSRF value.
    static func signInForm(_ app: TestApp, sourceLocation: SourceLocation = #_sourceLocation) throws -> (name: String, cookie: String, csrf: String, header: String) {
        let form = try app.request("GET", "/admin/")
        let name = "__Host-ps_signin"
        let header = try #require(DashboardClient.setCookieHeader(form, name), "no sign-in cookie", sourceLocation: sourceLocation)
        let cookie = try #require(DashboardClient.setCookie(form, name), sourceLocation: sourceLocation)
        let csrf = try #require(DashboardClient.csrf(in: form.text), "no CSRF field on the sign-in form", sourceLocation: sourceLocation)
        return (name, cookie, csrf, header)
    }

    static func signIn(_ app: TestApp, cookie: String?, csrf: String?) throws -> TestResponse {
        var fields: [(String, String)] = []
        if let csrf { fields.append(("csrf", csrf)) }
        fields.append(("token", app.adminToken))
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let cookie { headers.append(("Cookie", cookie)) }
        return try app.request("POST", "/admin/sign-in", headers: headers, body: Array(DashboardClient.encode(fields).utf8))
    }

    @Test("the sign-in form: a missing cookie or field, a wrong value, a cookie that has expired: 403, no session; the matching pair signs in", arguments: Backend.allCases)
    func signInForm(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let form = try Self.signInForm(app)
        let other = try Self.signInForm(app)
        #expect(form.cookie != other.cookie, "every form has its own value")
        #expect(form.csrf == form.cookie, "the double-submit pair")
        // The cookie expires in ten minutes: a browser then stops sending it, and the form arrives
        // without one (the browser's side of an expired cookie: `signInFormInABrowser`).
        #expect(form.header.contains("Max-Age=600"), "\(form.header)")

        let refusals: [(String, String?, String?)] = [
            ("no cookie (or an expired one: the browser no longer sends it)", nil, form.csrf),
            ("no field", "\(form.name)=\(form.cookie)", nil),
            ("another form's field", "\(form.name)=\(form.cookie)", other.csrf),
            ("another form's cookie", "\(other.name)=\(other.cookie)", form.csrf),
            ("a changed field", "\(form.name)=\(form.cookie)", "A" + form.csrf.dropFirst()),
            ("an empty field", "\(form.name)=\(form.cookie)", ""),
            ("a cookie for a field of the same value under another name", "ps_signin=\(form.cookie)", form.csrf),
        ]
        for (label, cookie, csrf) in refusals {
            let response = try Self.signIn(app, cookie: cookie, csrf: csrf)
            #expect(response.status == 403, "\(label): \(response.status)")
            #expect(DashboardClient.setCookieHeader(response, "__Host-ps_session") == nil, "\(label): a session cookie was set")
            #expect(response.text.contains("Admin token"), "\(label): the sign-in form is shown again")
            #expect(try app.store.execute("SELECT id_hash FROM admin_sessions").isEmpty, "\(label): a session was stored")
        }
        // The control: the matching pair signs in with the same token.
        let accepted = try Self.signIn(app, cookie: "\(form.name)=\(form.cookie)", csrf: form.csrf)
        #expect(accepted.status == 303)
        #expect(DashboardClient.setCookieHeader(accepted, "__Host-ps_session") != nil)
        #expect(try app.store.execute("SELECT id_hash FROM admin_sessions").count == 1)
    }

    @Test("in Chromium: a sign-in form whose cookie expired, or was replaced by another form's, is refused with a fresh form, which signs in")
    func signInFormInABrowser() async throws {
        let app = try DashboardBrowserTests.start()
        defer { app.stop() }
        try await BrowserScript.expectPasses(
            "dashboard_sign_in.py", serverURL: app.baseURL, name: "dashboard-sign-in", environment: ["ADMIN_TOKEN": app.adminToken]
        )
        #expect(try app.store.execute("SELECT id_hash FROM admin_sessions").count == 1, "only the last form opened a session")
    }
}

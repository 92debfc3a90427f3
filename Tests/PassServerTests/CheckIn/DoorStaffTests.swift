import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Door staff from the dashboard (`DoorStaff`): an admin's scanner access signs a phone with no
/// token into one event's scanner page; that session scans that event's tickets only, reaches no
/// other dashboard page and no admin API route (both enumerated from the router, so a route added
/// later is covered), and ends with the access's revocation or expiry.
@Suite("Door staff from the dashboard", .offCooperativePool, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct DoorStaffTests {
    /// The dashboard routes a door-staff phone may use: the entry (which sends it to its scanner
    /// page), the scanner page and its calls, signing out, and the sign-in forms.
    static let doorRoutes: Set<String> = [
        "/admin", "/admin/", "/admin/scan", "/admin/scan/checkins", "/admin/scan/checkins:batch", "/admin/scan/decode",
        "/admin/scan/events/:eventId/checkins", "/admin/sign-out", "/admin/sign-in", "/admin/s/:code",
    ]

    @Test("the link signs a fresh client into its event's scanner page: its ticket checks in, another event's is refused", arguments: Backend.allCases)
    func linkSignsInForOneEvent(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent(name: "Door Night")
        let other = try app.createEvent(name: "Other Night")
        let ours = try app.issueTicket(event: event, attendee: "Ada Lovelace")
        let theirs = try app.issueTicket(event: other, attendee: "Bo Tanaka")
        let codes = try Scanner(app)
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)

        let (code, _, created) = try DoorPhone.create(admin, event: event)
        #expect(code.wholeMatch(of: /[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}/) != nil, "\(code)")
        #expect(created.text.contains("https://passes.example.test/admin/s/\(code)"), "the page shows the short link")
        #expect(created.text.contains("<svg"), "the page shows the QR code")
        #expect(created.header("Cache-Control") == "no-store")
        // Stored hashed: the code is nowhere in the database.
        let stored = try app.store.execute("SELECT code_hash FROM scanner_access").map { try $0.bytes("code_hash") }
        #expect(stored == [try TokenVault.hash(code)])

        let phone = try DoorPhone.signIn(app, code: code)
        let page = try phone.client.get("/admin/scan")
        #expect(page.text.contains("Door Night") && !page.text.contains("Other Night"), "the page has its one event")
        #expect(page.text.contains("North gate – Sam"))

        let green = try phone.scan(try codes.code(ours))
        #expect(green.status == 200 && green.jsonObject?["result"] as? String == "checked_in", "\(green.status) \(green.text)")
        let red = try phone.scan(try codes.code(theirs))
        #expect(red.status == 422 && red.jsonObject?["result"] as? String == "other_event", "\(red.status) \(red.text)")
        #expect(red.jsonObject?["attendeeName"] == nil, "nothing is said about another event's ticket")
        #expect(try DoorPhone.isCheckedIn(app, ours))
        #expect(try DoorPhone.isCheckedIn(app, theirs) == false)
        // The same ticket from a scanner token checks in: the refusal was the door's.
        #expect(try codes.scan(try codes.code(theirs)).status == 200)
        // Check-ins record the access's name.
        let scanner = try app.store.execute("SELECT scanner FROM checkins WHERE event_id = \(event)").map { try $0.string("scanner") }
        #expect(scanner == ["North gate – Sam"])

        // Its event's count, and no other's.
        #expect(try phone.client.get("/admin/scan/events/\(event)/checkins").status == 200)
        #expect(try phone.client.get("/admin/scan/events/\(other)/checkins").status == 403)
        // The entry page sends it to its scanner page.
        #expect(try phone.client.get("/admin/").header("Location") == "/admin/scan")

        // The list shows who is signed in.
        let list = try admin.get("/admin/events/\(event)/door-staff")
        #expect(list.status == 200 && list.text.contains("1 signed in") && list.text.contains("Chrome on Android"), "\(list.text.prefix(200))")
        #expect(!list.text.contains(code), "the code is shown once, when it is made")
    }

    @Test("with a door-staff session every other dashboard route and every admin API route answers 403", arguments: Backend.allCases)
    func everyOtherRouteRefuses(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let phone = try DoorPhone.signIn(app, code: try DoorPhone.create(admin, event: event).code)
        func concrete(_ pattern: String) -> String {
            AdminAuthenticationTests.concrete(
                pattern.replacingOccurrences(of: ":eventId", with: event).replacingOccurrences(of: ":serialNumber", with: serial)
            )
        }

        let dashboard = app.application.routes.filter { ($0.pattern == "/admin" || $0.pattern.hasPrefix("/admin/")) && !$0.pattern.hasPrefix("/admin/v1/") }
        #expect(Self.doorRoutes.isSubset(of: Set(dashboard.map(\.pattern))), "\(Self.doorRoutes.subtracting(dashboard.map(\.pattern)))")
        let others = dashboard.filter { !Self.doorRoutes.contains($0.pattern) }
        #expect(others.count >= 25, "\(others.map(\.pattern))")
        for route in others {
            let target = concrete(route.pattern)
            if route.method == "GET" {
                // The same page is not refused to the admin: the refusal is the session's.
                let asAdmin = try admin.get(target)
                #expect(asAdmin.status != 403, "admin: GET \(route.pattern): \(asAdmin.status)")
                let response = try phone.client.get(target)
                #expect(response.status == 403, "door staff: GET \(route.pattern): \(response.status) \(response.text.prefix(200))")
            } else {
                let response = try phone.client.post(target, [], csrf: phone.csrf)
                #expect(response.status == 403, "door staff: \(route.method) \(route.pattern): \(response.status) \(response.text.prefix(200))")
            }
        }

        let api = app.application.routes.filter { $0.pattern.hasPrefix("/admin/v1/") }
        #expect(api.count == AdminController.routes.count)
        for route in api {
            let target = concrete(route.pattern)
            let body = Array("{}".utf8)
            // Without the cookie the route asks for a token: the 403 is the session's.
            let anonymous = try app.request(route.method, target, headers: [("Content-Type", "application/json")], body: body)
            #expect(anonymous.status == 401, "\(route.method) \(route.pattern) without a session: \(anonymous.status)")
            let response = try app.request(
                route.method, target, headers: [("Content-Type", "application/json"), ("Cookie", phone.client.cookie ?? "")], body: body
            )
            #expect(response.status == 403 && response.errorCode == "forbidden", "\(route.method) \(route.pattern): \(response.status) \(response.text)")
        }
        // Signing out ends the session.
        let signOut = try phone.client.post("/admin/sign-out", [], csrf: phone.csrf)
        #expect(signOut.status == 303)
        #expect(try phone.scan("anything").status == 401)
    }

    @Test("revoking ends the link and the phone's session at once", arguments: Backend.allCases)
    func revokeEndsLinkAndSessions(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let first = try app.issueTicket(event: event, attendee: "First")
        let second = try app.issueTicket(event: event, attendee: "Second")
        let codes = try Scanner(app)
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let (code, id, _) = try DoorPhone.create(admin, event: event)
        let kept = try DoorPhone.create(admin, event: event, name: "South gate")
        let phone = try DoorPhone.signIn(app, code: code)
        let other = try DoorPhone.signIn(app, code: kept.code)
        #expect(try phone.scan(try codes.code(first)).status == 200)

        let csrf = try admin.csrf(on: "/admin/events/\(event)/door-staff")
        let revoked = try admin.post("/admin/events/\(event)/door-staff/\(id)/revoke", [], csrf: csrf)
        #expect(revoked.status == 303 && revoked.header("Location")?.contains("notice=door-revoked") == true, "\(revoked.status)")

        let refused = try phone.scan(try codes.code(second))
        #expect(refused.status == 401 && refused.errorCode == "signed_out", "\(refused.status) \(refused.text)")
        #expect(try DoorPhone.isCheckedIn(app, second) == false)
        #expect(try phone.client.get("/admin/scan").header("Location") == "/admin/", "the page sends it to sign in")
        let link = try app.request("GET", "/admin/s/\(code)")
        #expect(link.status == 410 && link.text.contains("revoked"), "\(link.status)")
        // The other access's phone is not touched.
        #expect(try other.scan(try codes.code(second)).status == 200)
        let list = try admin.get("/admin/events/\(event)/door-staff").text
        #expect(list.contains("revoked"))
        #expect(list.contains("Revoke South gate") && !list.contains("Revoke North gate"), "only a usable access has a revoke button")
        // A viewer sees the list, without the form or the buttons.
        let (viewer, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .viewer))
        let seen = try viewer.get("/admin/events/\(event)/door-staff")
        #expect(seen.status == 200 && seen.text.contains("South gate"))
        #expect(!seen.text.contains("Create sign-in link") && !seen.text.contains("Revoke South gate"))
        #expect(try viewer.post("/admin/events/\(event)/door-staff", [("name", "Viewer gate")], csrf: try viewer.csrf(on: "/admin/")).status == 403)
        // An unknown code: its own page.
        #expect(try app.request("GET", "/admin/s/AAAA-BBBB-CCCC").status == 404)
        #expect(try app.request("GET", "/admin/s/not-a-code").status == 404)
    }

    @Test("an access past its expiry refuses its link and ends its sessions", arguments: Backend.allCases)
    func expiryEndsLinkAndSessions(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let (event, serial, code, expiry) = try await offPool { () throws -> (String, String, String, Date) in
            let event = try app.createEvent()
            let serial = try app.issueTicket(event: event)
            let expiry = Date().addingTimeInterval(3)
            let created = try app.admin(
                "POST", "/admin/v1/events/\(event)/scanner-access", json: #"{"name":"Short shift","expiresAt":"\#(ISODate.format(expiry))"}"#
            )
            try #require(created.status == 201, "\(created.status) \(created.text)")
            return (event, serial, try #require(created.jsonObject?["code"] as? String), expiry)
        }
        let phone = try await offPool { try DoorPhone.signIn(app, code: code) }
        // Before the expiry the session works (a scan that is refused for its code, not its session).
        #expect(try await offPool { try phone.scan("unknown").status } == 404)
        let deadline = ContinuousClock.now + .seconds(20)
        while Date() <= expiry.addingTimeInterval(0.2) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
        try await offPool {
            let codes = try Scanner(app)
            let refused = try phone.scan(try codes.code(serial))
            #expect(refused.status == 401 && refused.errorCode == "signed_out", "\(refused.status) \(refused.text)")
            #expect(try DoorPhone.isCheckedIn(app, serial) == false)
            let link = try app.request("GET", "/admin/s/\(code)")
            #expect(link.status == 410 && link.text.contains("expired"), "\(link.status)")
            let listed = try app.admin("GET", "/admin/v1/events/\(event)/scanner-access").jsonObject?["items"] as? [[String: Any]]
            #expect(listed?.first?["state"] as? String == "expired")
            #expect((listed?.first?["sessions"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("admin API: create, list with sessions, revoke; bounds; viewers read the list only, scanner tokens nothing", arguments: Backend.allCases)
    func adminAPI(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let created = try app.admin("POST", "/admin/v1/events/\(event)/scanner-access", json: #"{"name":"North gate"}"#)
        #expect(created.status == 201, "\(created.text)")
        let body = try #require(created.jsonObject)
        let code = try #require(body["code"] as? String)
        #expect(body["link"] as? String == "https://passes.example.test/admin/s/\(code)")
        #expect(body["state"] as? String == "active" && body["eventId"] as? String == event)
        #expect((body["createdBy"] as? String)?.hasPrefix("test-") == true)
        // Without an expiry: when the door closes (the event starts 2027-03-01 19:00 +09:00, lasts
        // 4 hours, grace 12 hours), or 14 days from now if that is sooner.
        let expiry = try #require((body["expiresAt"] as? String).flatMap(ISODate.parse))
        let closes = try #require(ISODate.parse("2027-03-02T11:00:00Z"))
        #expect(abs(expiry.timeIntervalSince(min(closes, Date().addingTimeInterval(DoorStaff.maxLifetime)))) < 5, "\(expiry)")

        _ = try DoorPhone.signIn(app, code: code)
        let listed = try #require(try app.admin("GET", "/admin/v1/events/\(event)/scanner-access").jsonObject?["items"] as? [[String: Any]])
        #expect(listed.count == 1 && listed.first?["code"] == nil, "the code is not listed")
        let sessions = try #require(listed.first?["sessions"] as? [[String: Any]])
        #expect(sessions.count == 1 && sessions.first?["device"] as? String == "Chrome on Android")

        let id = try #require(body["id"] as? String)
        let revoked = try app.admin("DELETE", "/admin/v1/events/\(event)/scanner-access/\(id)")
        #expect(revoked.status == 200 && revoked.jsonObject?["state"] as? String == "revoked")
        #expect(try app.admin("DELETE", "/admin/v1/events/\(event)/scanner-access/999999").status == 404)
        #expect(try app.admin("DELETE", "/admin/v1/events/\(event)/scanner-access/abc").status == 404)

        // A later expiry than 14 days from now is taken as that.
        let late = try app.admin(
            "POST", "/admin/v1/events/\(event)/scanner-access",
            json: #"{"name":"Late","expiresAt":"\#(ISODate.format(Date().addingTimeInterval(30 * 86_400)))"}"#
        )
        let cappedText: String? = late.jsonObject?["expiresAt"] as? String
        let capped = try #require(cappedText.flatMap { ISODate.parse($0) }, "\(late.status) \(late.text)")
        #expect(late.status == 201 && abs(capped.timeIntervalSince(Date().addingTimeInterval(DoorStaff.maxLifetime))) < 5, "\(capped)")
        for json in [
            #"{}"#, #"{"name":"   "}"#, #"{"name":"x","expiresAt":"2020-01-01T00:00:00Z"}"#, #"{"name":"x\u0007"}"#,
            #"{"name":"\#(String(repeating: "n", count: 81))"}"#, #"{"name":"x","colour":"red"}"#,
        ] {
            let refused = try app.admin("POST", "/admin/v1/events/\(event)/scanner-access", json: json)
            #expect(refused.status == 400 && refused.errorCode == "invalid_fields", "\(json): \(refused.status) \(refused.text)")
        }
        // No access to a door that is closed.
        let past = try #require(
            try app.admin("POST", "/admin/v1/events", json: #"{"name":"Past","venue":"Hall","startsAt":"2020-01-01T19:00:00Z","confirmPastStart":true}"#).jsonObject?["id"] as? String
        )
        let over = try app.admin("POST", "/admin/v1/events/\(past)/scanner-access", json: #"{"name":"Late gate"}"#)
        #expect(over.status == 409 && over.errorCode == "event_ended", "\(over.status) \(over.text)")
        for role in [AdminRole.viewer, .scanner] {
            let token = try AdminRoleTests.token(app, role: role)
            for (method, path) in [("GET", ""), ("POST", ""), ("DELETE", "/\(id)")] {
                let response = try app.request(
                    method, "/admin/v1/events/\(event)/scanner-access\(path)",
                    headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array(#"{"name":"x"}"#.utf8)
                )
                // Reading the list is a read: a viewer's (as every GET of the API).
                let expected = role == .viewer && method == "GET" ? 200 : 403
                #expect(response.status == expected, "\(role) \(method): \(response.status)")
            }
        }
    }

    @Test("scanner tokens made on the command line keep working: the API and the scanner page with the event chooser")
    func commandLineScannerTokens() throws {
        let app = try TestApp.start(.sqlite)
        defer { app.stop() }
        let event = try app.createEvent(name: "Token Night")
        _ = try app.createEvent(name: "Second Night")
        let serial = try app.issueTicket(event: event)
        let created = try PassServerExecutable.run(["token", "create", "--name", "door-cli", "--role", "scanner"], environment: ["DATABASE_URL": app.databaseURL])
        #expect(created.status == 0, "\(created.standardError)")
        let token = created.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let code = try Scanner(app).code(serial)
        let scanned = try app.request(
            "POST", "/admin/v1/checkins", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(#"{"code":\#(Scanner.quoted(code))}"#.utf8)
        )
        #expect(scanned.status == 200, "\(scanned.text)")
        let (client, response) = try DashboardClient.signIn(app, token: token)
        #expect(response.header("Location") == "/admin/scan")
        let page = try client.get("/admin/scan")
        #expect(page.status == 200 && page.text.contains("Choose the event") && page.text.contains("Second Night"))
        // Its session reaches no other page, as before (sent to the entry, not refused).
        #expect(try client.get("/admin/events/\(event)").status == 303)
    }

    @Test("link lookups are rate limited per client; codes are read as typed")
    func rateLimitAndCodes() throws {
        #expect(DoorStaff.normalized("k7qm 3xpa-9wtr") == "K7QM-3XPA-9WTR")
        #expect(DoorStaff.normalized("O1IL-0000-0000") == "0111-0000-0000")
        #expect(DoorStaff.normalized("K7QM-3XPA-9WT") == nil)
        #expect(DoorStaff.normalized("K7QM-3XPA-9WTU") == nil, "U is not in the alphabet")
        let made = (0..<200).map { _ in DoorStaff.newCode() }
        #expect(Set(made).count == 200 && made.allSatisfy { DoorStaff.normalized($0) == $0 })

        let app = try TestApp.start(.sqlite)
        defer { app.stop() }
        var statuses: [Int] = []
        for _ in 0..<31 { statuses.append(try app.request("GET", "/admin/s/AAAA-BBBB-CCCC").status) }
        #expect(statuses.prefix(30).allSatisfy { $0 == 404 }, "\(statuses)")
        #expect(statuses.last == 429)
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The scanner page (`/admin/scan`) and its JSON calls over plain HTTP, on both stores: who may
/// sign in to it and scan, CSRF, status codes and JSON error bodies.
@Suite("Scanner page: sessions, CSRF and the JSON check-in calls", .offCooperativePool, .timeLimit(.minutes(3)))
struct ScannerPageTests {
    @Test("a scanner token signs in to the scanner page and nowhere else; the page has the scan input and security headers", arguments: Backend.allCases)
    func scannerSession(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent(name: "Door Night")
        let serial = try app.issueTicket(event: event)
        _ = try app.createEvent(name: "<img src=x onerror=alert(1)>")
        #expect(try app.request("GET", "/admin/scan").header("Location") == "/admin/")

        let (scanner, signIn) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .scanner))
        #expect(signIn.status == 303)
        #expect(signIn.header("Location") == "/admin/scan")
        let page = try scanner.get("/admin/scan?event=\(event)")
        #expect(page.status == 200)
        expectSecurityHeaders(page, "scanner page")
        #expect(page.text.contains(#"id="scan-code""#))
        #expect(page.text.contains(#"<button type="button" id="scan-camera-start" hidden>Scan with the camera</button>"#))
        #expect(page.text.contains(#"<video id="scan-video" class="scan-video" playsinline muted hidden></video>"#))
        #expect(page.text.contains(#"<script src="/assets/scanner.js" defer></script>"#))
        #expect(page.text.contains(#"<option value="\#(event)" selected>Door Night"#))
        #expect(!page.text.contains("<script>"), "no inline script")
        #expect(page.text.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(!page.text.contains("<img src=x"), "an event name became markup")
        // The rest of the dashboard is closed to it: the events page sends it back to its page.
        #expect(try scanner.get("/admin/").header("Location") == "/admin/scan")
        for target in ["/admin/events/\(event)", "/admin/tickets/\(serial)", "/admin/events/new"] {
            #expect(try scanner.get(target).header("Location") == "/admin/", "\(target)")
        }
        // An unknown event in the link is said so; the page still works.
        let unknown = try scanner.get("/admin/scan?event=nosuchevent")
        #expect(unknown.status == 200)
        #expect(unknown.text.contains("No event has the id in this link"))
        // The script is served.
        let script = try app.request("GET", "/assets/scanner.js")
        #expect(script.status == 200)
        #expect(script.header("Content-Type")?.hasPrefix("text/javascript") == true)
        #expect(script.text.contains("/admin/scan/checkins:batch"))
        // It signs out like anyone.
        let csrf = try scanner.csrf(on: "/admin/scan")
        #expect(try scanner.post("/admin/sign-out", [], csrf: csrf).status == 303)
        #expect(try scanner.get("/admin/scan").header("Location") == "/admin/")
    }

    @Test("one scan through the session: 200, 409, 404, 410, with the scanner's name recorded; CSRF and sign-in refused as JSON", arguments: Backend.allCases)
    func singleScan(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event, attendee: "Grace Hopper", seat: "B7")
        let cancelled = try app.issueTicket(event: event, attendee: "Gone")
        #expect(try app.admin("POST", "/admin/v1/tickets/\(cancelled)/cancel", json: #"{"reason":"refund"}"#).status == 200)
        let codes = try Scanner(app)
        let code = try codes.code(serial)
        let scannerToken = try AdminRoleTests.token(app, role: .scanner)
        let (client, _) = try DashboardClient.signIn(app, token: scannerToken)
        let csrf = try client.csrf(on: "/admin/scan")
        let body = #"{"code":\#(Scanner.quoted(code)),"gate":"North"}"#

        // Refused before anything happens: no session, no CSRF header, a wrong one.
        let anonymous = try app.request("POST", "/admin/scan/checkins", headers: [("Content-Type", "application/json"), ("X-CSRF-Token", csrf)], body: Array(body.utf8))
        #expect(anonymous.status == 401)
        #expect(anonymous.errorCode == "signed_out")
        let noCSRF = try client.json("POST", "/admin/scan/checkins", body, csrf: nil)
        #expect(noCSRF.status == 403)
        #expect(noCSRF.errorCode == "csrf")
        #expect(try client.json("POST", "/admin/scan/checkins", body, csrf: "x" + csrf).errorCode == "csrf")
        // A bearer token is not a session.
        let bearer = try app.request(
            "POST", "/admin/scan/checkins", headers: [("Authorization", "Bearer \(scannerToken)"), ("Content-Type", "application/json")], body: Array(body.utf8)
        )
        #expect(bearer.status == 401)
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["checkedInAt"] == nil, "a refused scan checked the ticket in")

        let first = try client.json("POST", "/admin/scan/checkins", body, csrf: csrf)
        #expect(first.status == 200)
        let answer = try #require(first.jsonObject)
        #expect(answer["result"] as? String == "checked_in")
        #expect(answer["attendeeName"] as? String == "Grace Hopper")
        #expect(answer["seat"] as? String == "B7")
        #expect(answer["gate"] as? String == "North")
        let scannerName = try #require(try app.store.execute("SELECT scanner FROM checkins").first?.string("scanner"))
        #expect(scannerName.hasPrefix("scanner-"), "the session's token is recorded as who scanned: \(scannerName)")
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["checkedInAt"] as? String == answer["checkedInAt"] as? String)

        let again = try client.json("POST", "/admin/scan/checkins", #"{"code":\#(Scanner.quoted(code)),"gate":"South"}"#, csrf: csrf)
        #expect(again.status == 409)
        #expect(again.errorCode == "already_checked_in")
        #expect(again.jsonObject?["gate"] as? String == "North")
        let gone = try client.json("POST", "/admin/scan/checkins", #"{"code":\#(Scanner.quoted(try codes.code(cancelled)))}"#, csrf: csrf)
        #expect(gone.status == 410)
        #expect(gone.jsonObject?["reason"] as? String == "refund")
        // The signature's last character changed (to one it is not: one code in 64 ends in A).
        let forgedCode = String(code.dropLast()) + (code.hasSuffix("A") ? "B" : "A")
        let forged = try client.json("POST", "/admin/scan/checkins", #"{"code":\#(Scanner.quoted(forgedCode))}"#, csrf: csrf)
        #expect(forged.status == 404)
        #expect(forged.errorCode == "unknown_code")
        // Bad input is a 400 with the API's error body.
        for (bad, code) in [("{", "malformed_json"), (#"{"gate":"North"}"#, "invalid_fields"), (#"{"code":""}"#, "invalid_fields"),
                            (#"{"code":"x","extra":1}"#, "invalid_fields")] {
            let response = try client.json("POST", "/admin/scan/checkins", bad, csrf: csrf)
            #expect(response.status == 400, "\(bad)")
            #expect(response.errorCode == code, "\(bad): \(response.text)")
        }
    }

    @Test("the batch and the count through the session; a viewer's session may not scan or count", arguments: Backend.allCases)
    func batchCountAndViewer(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serials = try Scanner.issue(3, app: app, event: event)
        let codes = try Scanner(app)
        let (client, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .scanner))
        let csrf = try client.csrf(on: "/admin/scan")

        let count = try client.get("/admin/scan/events/\(event)/checkins")
        #expect(count.status == 200)
        #expect(count.header("Cache-Control") == "private, no-store")
        #expect(count.jsonObject?["checkedIn"] as? Int == 0)
        #expect(count.jsonObject?["total"] as? Int == 3)
        #expect(try client.get("/admin/scan/events/nosuchevent/checkins").status == 404)
        #expect(try app.request("GET", "/admin/scan/events/\(event)/checkins").errorCode == "signed_out")

        let at = Date().addingTimeInterval(-120)
        let scans = try serials.prefix(2).enumerated().map { index, serial in
            #"{"code":\#(Scanner.quoted(try codes.code(serial))),"gate":"Side","scannedAt":"\#(ISODate.format(at.addingTimeInterval(Double(index))))"}"#
        }
        let batchBody = #"{"scans":[\#(scans.joined(separator: ",")),\#(scans[0])]}"#
        let refused = try client.json("POST", "/admin/scan/checkins:batch", batchBody, csrf: nil)
        #expect(refused.status == 403)
        #expect(refused.errorCode == "csrf")
        let invalid = try client.json("POST", "/admin/scan/checkins:batch", #"{"scans":[{"code":"x"}]}"#, csrf: csrf)
        #expect(invalid.status == 400)
        #expect(invalid.text.contains("scans[0].scannedAt"))
        let batch = try client.json("POST", "/admin/scan/checkins:batch", batchBody, csrf: csrf)
        #expect(batch.status == 200)
        let results = try #require(batch.jsonObject?["results"] as? [[String: Any]])
        #expect(results.map { $0["result"] as? String } == ["checked_in", "checked_in", "already_checked_in"])
        #expect(results.map { $0["status"] as? Int } == [200, 200, 409])
        let after = try #require(try client.get("/admin/scan/events/\(event)/checkins").jsonObject)
        #expect(after["checkedIn"] as? Int == 2)
        #expect(after["total"] as? Int == 3)

        // A viewer: the page without an input, and every call refused with 403.
        let (viewer, signIn) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .viewer))
        #expect(signIn.header("Location") == "/admin/")
        let page = try viewer.get("/admin/scan")
        #expect(page.status == 200)
        expectSecurityHeaders(page, "viewer's scanner page")
        #expect(!page.text.contains(#"id="scan-code""#))
        #expect(page.text.contains("cannot check tickets in"))
        let viewerCSRF = try viewer.csrf(on: "/admin/scan")
        let last = #"{"code":\#(Scanner.quoted(try codes.code(serials[2])))}"#
        let forbidden = try viewer.json("POST", "/admin/scan/checkins", last, csrf: viewerCSRF)
        #expect(forbidden.status == 403)
        #expect(forbidden.errorCode == "forbidden")
        #expect(try viewer.json("POST", "/admin/scan/checkins:batch", #"{"scans":[]}"#, csrf: viewerCSRF).status == 403)
        #expect(try viewer.get("/admin/scan/events/\(event)/checkins").status == 403)
        // The same scan by an admin's session goes through: the viewer's was refused for its role.
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        #expect(try admin.json("POST", "/admin/scan/checkins", last, csrf: try admin.csrf(on: "/admin/scan")).status == 200)
    }
}

extension DashboardClient {
    /// A JSON request with the session cookie and, unless nil, the CSRF header of the scanner page.
    func json(_ method: String, _ target: String, _ body: String, csrf: String?) throws -> TestResponse {
        var headers = [("Content-Type", "application/json")]
        if let cookie { headers.append(("Cookie", cookie)) }
        if let csrf { headers.append(("X-CSRF-Token", csrf)) }
        return try app.request(method, target, headers: headers, body: Array(body.utf8))
    }
}

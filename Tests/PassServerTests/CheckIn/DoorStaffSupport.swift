import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// A door-staff phone over plain HTTP: the admin makes a scanner access on the event's door-staff
/// page, the phone opens its link and presses the button, then scans with its session.
struct DoorPhone {
    let app: TestApp
    var client: DashboardClient
    /// The scanner page's CSRF token (`data-csrf`).
    var csrf: String

    /// Makes a scanner access for `event` on the dashboard as `admin`; its code and the access's id.
    static func create(
        _ admin: DashboardClient, event: String, name: String = "North gate – Sam", expiresAt: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (code: String, id: String, page: TestResponse) {
        let csrf = try admin.csrf(on: "/admin/events/\(event)/door-staff")
        var fields = [("name", name)]
        if let expiresAt { fields.append(("expiresAt", expiresAt)) }
        let page = try admin.post("/admin/events/\(event)/door-staff", fields, csrf: csrf)
        try #require(page.status == 200, "\(page.status) \(page.text.prefix(400))", sourceLocation: sourceLocation)
        let code = try #require(page.text.firstMatch(of: /id="door-code">([0-9A-Z-]+)</).map { String($0.1) }, sourceLocation: sourceLocation)
        let id = try #require(page.text.firstMatch(of: /data-access="([0-9]+)"/).map { String($0.1) }, sourceLocation: sourceLocation)
        return (code, id, page)
    }

    /// Opens the link of `code` as a browser with no cookies and presses "Start scanning".
    static func signIn(_ app: TestApp, code: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> DoorPhone {
        let page = try app.request("GET", "/admin/s/\(code)", headers: [("User-Agent", "Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Mobile Safari/537.36")])
        try #require(page.status == 200, "link page: \(page.status) \(page.text.prefix(300))", sourceLocation: sourceLocation)
        let challengeName = DashboardSessions.signInCookieName(secure: true)
        let challenge = try #require(DashboardClient.setCookie(page, challengeName), sourceLocation: sourceLocation)
        let field = try #require(DashboardClient.csrf(in: page.text), sourceLocation: sourceLocation)
        let response = try app.request(
            "POST", "/admin/s/\(code)",
            headers: [("Cookie", "\(challengeName)=\(challenge)"), ("Content-Type", "application/x-www-form-urlencoded"),
                      ("User-Agent", "Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Mobile Safari/537.36")],
            body: Array(DashboardClient.encode([("csrf", field)]).utf8)
        )
        try #require(response.status == 303 && response.header("Location") == "/admin/scan", "sign-in: \(response.status) \(response.text.prefix(300))", sourceLocation: sourceLocation)
        let sessionName = DashboardSessions.cookieName(secure: true)
        let session = try #require(DashboardClient.setCookie(response, sessionName), sourceLocation: sourceLocation)
        let client = DashboardClient(app: app, cookie: "\(sessionName)=\(session)")
        let scanner = try client.get("/admin/scan")
        try #require(scanner.status == 200, "scanner page: \(scanner.status)", sourceLocation: sourceLocation)
        let csrf = try #require(scanner.text.firstMatch(of: /data-csrf="([^"]+)"/).map { String($0.1) }, sourceLocation: sourceLocation)
        return DoorPhone(app: app, client: client, csrf: csrf)
    }

    /// `POST /admin/scan/checkins` with the phone's session.
    func scan(_ code: String) throws -> TestResponse {
        var headers = [("Content-Type", "application/json"), ("X-CSRF-Token", csrf)]
        if let cookie = client.cookie { headers.append(("Cookie", cookie)) }
        return try app.request("POST", "/admin/scan/checkins", headers: headers, body: Array(#"{"code":\#(Scanner.quoted(code))}"#.utf8))
    }

    /// Whether the ticket is checked in, through the admin API.
    static func isCheckedIn(_ app: TestApp, _ serial: String) throws -> Bool {
        try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["checkedInAt"] != nil
    }
}

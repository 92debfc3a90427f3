import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// A browser's part of the dashboard over plain HTTP: the session cookie, and forms with the CSRF
/// token read from the page they are on.
struct DashboardClient {
    let app: TestApp
    /// `__Host-ps_session=…` (`ps_session=…` behind an http public URL), once signed in.
    var cookie: String?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Signs in with `token` through the sign-in form (its double-submit cookie included).
    static func signIn(
        _ app: TestApp, token: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (client: DashboardClient, response: TestResponse) {
        let form = try app.request("GET", "/admin/")
        let secure = Self.setCookie(form, DashboardSessions.signInCookieName(secure: true)) != nil
        let signInCookie = DashboardSessions.signInCookieName(secure: secure)
        let sessionCookie = DashboardSessions.cookieName(secure: secure)
        let challenge = try #require(Self.setCookie(form, signInCookie), "no sign-in cookie: \(form.status)", sourceLocation: sourceLocation)
        let csrf = try #require(Self.csrf(in: form.text), "no CSRF field on the sign-in form", sourceLocation: sourceLocation)
        let response = try app.request(
            "POST", "/admin/sign-in", headers: [("Cookie", "\(signInCookie)=\(challenge)"), ("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(Self.encode([("csrf", csrf), ("token", token)]).utf8)
        )
        let session = Self.setCookie(response, sessionCookie)
        return (DashboardClient(app: app, cookie: session.map { "\(sessionCookie)=\($0)" }), response)
    }

    func get(_ target: String) throws -> TestResponse {
        try app.request("GET", target, headers: cookie.map { [("Cookie", $0)] } ?? [])
    }

    /// POSTs `fields` (url-encoded) with the session cookie; `csrf` nil sends none.
    func post(_ target: String, _ fields: [(String, String)], csrf: String?) throws -> TestResponse {
        var all = fields
        if let csrf { all.append(("csrf", csrf)) }
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let cookie { headers.append(("Cookie", cookie)) }
        return try app.request("POST", target, headers: headers, body: Array(Self.encode(all).utf8))
    }

    /// The CSRF token of the forms on `page` (GET first).
    func csrf(on page: String) throws -> String {
        let response = try get(page)
        guard let token = Self.csrf(in: response.text) else { throw Failure(description: "no CSRF field on \(page): \(response.status)") }
        return token
    }

    static func csrf(in html: String) -> String? {
        guard let match = html.firstMatch(of: /name="csrf" value="([^"]+)"/) else { return nil }
        return String(match.1)
    }

    /// The value a `Set-Cookie` header of the response gives cookie `name`.
    static func setCookie(_ response: TestResponse, _ name: String) -> String? {
        setCookieHeader(response, name).flatMap { header in
            header.split(separator: ";").first.map { String($0.dropFirst(name.count + 1)) }
        }
    }

    /// The whole `Set-Cookie` header for cookie `name`.
    static func setCookieHeader(_ response: TestResponse, _ name: String) -> String? {
        response.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("\(name)=") }?.1
    }

    static func encode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
    }
}

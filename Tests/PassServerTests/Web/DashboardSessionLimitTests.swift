import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// How many sessions a token holds, and the `__Host-` rules of the cookies behind https.
@Suite("Dashboard: sessions per token and __Host- cookies", .offCooperativePool, .timeLimit(.minutes(3)))
struct DashboardSessionLimitTests {
    /// How many sessions of each token are stored, by token name.
    static func sessionCounts(_ app: TestApp) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try app.store.execute("SELECT t.name FROM admin_sessions s JOIN admin_tokens t ON t.id = s.token_id") {
            counts[try row.string("name"), default: 0] += 1
        }
        return counts
    }

    @Test("a token holds at most maxSessionsPerToken sessions: signing in once more ends the oldest, not another token's", arguments: Backend.allCases)
    func sessionsPerTokenAreBounded(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let limit = DashboardSessions.maxSessionsPerToken
        let otherToken = try AdminRoleTests.token(app, role: .viewer)
        let (other, _) = try DashboardClient.signIn(app, token: otherToken)
        var clients: [DashboardClient] = []
        for _ in 0..<(limit + 3) {
            let (client, response) = try DashboardClient.signIn(app, token: app.adminToken)
            try #require(response.status == 303)
            clients.append(client)
        }
        let counts = try Self.sessionCounts(app)
        let adminName = try #require(try app.store.withSession(.read) { try $0.admin.adminTokens() }.first { $0.role == .admin }?.name)
        #expect(counts[adminName] == limit, "\(counts)")
        #expect(counts.values.reduce(0, +) == limit + 1, "the other token's session stays: \(counts)")
        // The three oldest were ended; every later one still works, and so does the other token's.
        for (index, client) in clients.enumerated() {
            let page = try client.get("/admin/events/new")
            if index < 3 {
                #expect(page.status == 303 && page.header("Location") == "/admin/", "session \(index) should have ended")
            } else {
                #expect(page.status == 200, "session \(index) should work")
            }
        }
        #expect(try other.get("/admin/").text.contains("<h1>Events</h1>"))
    }

    @Test("behind https every dashboard cookie is a __Host- cookie (Secure, Path=/, no Domain); the unprefixed name is not believed")
    func hostPrefixedCookies() throws {
        let app = try TestApp.start(.sqlite)
        defer { app.stop() }
        let form = try app.request("GET", "/admin/")
        let (client, signedIn) = try DashboardClient.signIn(app, token: app.adminToken)
        let signedOut = try client.post("/admin/sign-out", [], csrf: client.csrf(on: "/admin/"))
        let headers = [form, signedIn, signedOut].flatMap { response in
            response.headers.filter { $0.0.lowercased() == "set-cookie" }.map(\.1)
        }
        // The sign-in form's cookie, the session, the sign-in cookie cleared and the session cleared.
        #expect(headers.count == 4, "\(headers)")
        for header in headers {
            let attributes = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(attributes.first?.hasPrefix("__Host-ps_") == true, "\(header)")
            #expect(attributes.contains("Secure") && attributes.contains("Path=/"), "\(header)")
            #expect(!attributes.contains { $0.lowercased().hasPrefix("domain=") }, "\(header)")
        }

        // A valid session id under the unprefixed name (which plain http or a sibling host could
        // have set) opens nothing; the same id under the __Host- name does.
        let (fresh, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let id = String(try #require(fresh.cookie).split(separator: "=", maxSplits: 1).last ?? "")
        let unprefixed = try app.request("GET", "/admin/events/new", headers: [("Cookie", "ps_session=\(id)")])
        #expect(unprefixed.status == 303 && unprefixed.header("Location") == "/admin/")
        let prefixed = try app.request("GET", "/admin/events/new", headers: [("Cookie", "__Host-ps_session=\(id)")])
        #expect(prefixed.status == 200)
    }
}

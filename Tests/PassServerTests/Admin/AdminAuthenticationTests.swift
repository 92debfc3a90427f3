import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Every admin route needs a valid, unrevoked bearer token; tokens come from `pass-server token`.
@Suite("Admin API: authentication and tokens", .offCooperativePool, .timeLimit(.minutes(4)), .tags(.endToEnd))
struct AdminAuthenticationTests {
    /// A concrete path for a route pattern (`:param` → a plausible value).
    static func concrete(_ pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "x\(UUID().uuidString.prefix(8).lowercased())" : String($0) }
            .joined(separator: "/")
    }

    @Test("every admin route refuses a missing, wrong or revoked token with 401 and WWW-Authenticate", arguments: Backend.allCases)
    func everyRouteRefuses(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let revoked = AdminAuthentication.newToken()
        _ = try app.store.withSession(.write) { try $0.admin.createAdminToken(name: "to-revoke", tokenHash: TokenVault.hash(revoked), now: Date()) }
        #expect(try app.store.withSession(.write) { try $0.admin.revokeAdminToken(idOrName: "to-revoke", now: Date()) } == 1)

        let routes = app.application.routes.filter { $0.pattern.hasPrefix("/admin/v1/") }
        #expect(routes.count == AdminController.routes.count)
        #expect(routes.count == 55)
        let credentials: [[(String, String)]] = [
            [],
            [("Authorization", "Bearer psa_" + String(repeating: "0", count: 43))],
            [("Authorization", "Basic YWRtaW46YWRtaW4=")],
            [("Authorization", "Bearer \(revoked)")],
        ]
        for route in routes {
            for headers in credentials {
                let response = try app.request(
                    route.method, Self.concrete(route.pattern), headers: headers + [("Content-Type", "application/json")], body: Array("{}".utf8)
                )
                #expect(response.status == 401, "\(route.method) \(route.pattern) with \(headers.map(\.1))")
                #expect(response.header("WWW-Authenticate") == "Bearer")
                #expect(response.errorCode == "unauthorized")
            }
        }
        // The app's own token passes the same check (the route then answers 404 for the made-up id).
        #expect(try app.admin("GET", Self.concrete("/admin/v1/events/:eventId")).status == 404)
    }

    @Test("token create prints a working token; list hides it; revoke makes it 401", arguments: Backend.allCases)
    func tokenCommands(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let environment = ["DATABASE_URL": app.databaseURL]
        let name = "ci-\(UUID().uuidString.prefix(6).lowercased())"

        let created = try PassServerExecutable.run(["token", "create", "--name", name], environment: environment)
        #expect(created.status == 0, "\(created.standardError)")
        let token = created.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("psa_"))
        let headers = [("Authorization", "Bearer \(token)")]
        #expect(try app.request("GET", "/admin/v1/events/nonexistent", headers: headers).status == 404)

        let listed = try PassServerExecutable.run(["token", "list"], environment: environment)
        #expect(listed.status == 0)
        #expect(listed.standardOutput.contains(name))
        #expect(!listed.standardOutput.contains(token))
        #expect(!listed.standardOutput.contains(String(token.dropFirst(4).prefix(12))))

        let revoked = try PassServerExecutable.run(["token", "revoke", name], environment: environment)
        #expect(revoked.status == 0, "\(revoked.standardError)")
        let refused = try app.request("GET", "/admin/v1/events/nonexistent", headers: headers)
        #expect(refused.status == 401)
        #expect(refused.header("WWW-Authenticate") == "Bearer")
        #expect(try PassServerExecutable.run(["token", "list"], environment: environment).standardOutput.contains("revoked"))
    }
}

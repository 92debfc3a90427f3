import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import SystemSupport
import Testing

@testable import PassServer

/// Roles of admin tokens: every admin route the application serves is enumerated, so a route
/// added later is covered without changing this test.
@Suite("Admin API: token roles", .offCooperativePool, .timeLimit(.minutes(4)), .tags(.endToEnd))
struct AdminRoleTests {
    /// A token of `role` stored in the app's database.
    static func token(_ app: TestApp, role: AdminRole) throws -> String {
        let token = AdminAuthentication.newToken()
        _ = try app.store.withSession(.write) { session in
            try session.admin.createAdminToken(name: "\(role.rawValue)-\(UUID().uuidString.prefix(8))", role: role, tokenHash: TokenVault.hash(token), now: Date())
        }
        return token
    }

    static func call(_ app: TestApp, _ method: String, _ pattern: String, token: String) throws -> TestResponse {
        try app.request(
            method, AdminAuthenticationTests.concrete(pattern),
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array("{}".utf8)
        )
    }

    /// The check-in routes: the only ones a scanner token may use (and a viewer may not).
    static let scannerRoutes: Set<String> = [
        "POST /admin/v1/checkins", "POST /admin/v1/checkins:batch", "GET /admin/v1/events/:eventId/checkins",
    ]

    @Test("every admin route declares its role in the one table its preflight checks", arguments: Backend.allCases)
    func everyRouteHasARole(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let served = Set(app.application.routes.filter { $0.pattern.hasPrefix("/admin/v1/") }.map { "\($0.method) \($0.pattern)" })
        let declared = Set(AdminController.routes.map { "\($0.method.rawValue) \($0.pattern)" })
        #expect(served.count >= 10)
        #expect(served == declared)
        for route in AdminController.routes {
            let expected: AdminRole = Self.scannerRoutes.contains("\(route.method.rawValue) \(route.pattern)")
                ? .scanner : route.method == .GET ? .viewer : .admin
            #expect(route.role == expected, "\(route.method) \(route.pattern)")
        }
    }

    @Test("openapi.yaml states each admin route's role, as the server enforces it")
    func rolesInOpenAPI() throws {
        let script = """
            import sys, yaml
            doc = yaml.safe_load(open(sys.argv[1]))
            for path, item in doc["paths"].items():
                for method, operation in item.items():
                    if path.startswith("/admin/v1/") and isinstance(operation, dict) and "responses" in operation:
                        role = operation.get("x-required-role", "-")
                        described = "token" in operation.get("description", "") and role in operation.get("description", "")
                        print(method.upper(), path, role, "403" in operation["responses"], described)
            """
        let process = try ChildProcess(
            "/usr/bin/python3", ["-c", script, OpenAPITests.documentPath], standardOutput: .pipe, standardError: .pipe
        )
        let (output, error) = try process.readToEnd()
        let text = String(decoding: output, as: UTF8.self)
        _ = process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: error, as: UTF8.self))")
        let documented = Set(text.split(separator: "\n").map(String.init))
        let enforced = Set(AdminController.routes.map { "\($0.method.rawValue) \(OpenAPITests.openAPIPath($0.pattern)) \($0.role.rawValue) True True" })
        #expect(documented == enforced)
    }

    @Test("viewer: 403 on every write and check-in, never on a read; scanner: 403 everywhere but check-in; admin: never 403", arguments: Backend.allCases)
    func rolesOnEveryRoute(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let viewer = try Self.token(app, role: .viewer)
        let scanner = try Self.token(app, role: .scanner)
        let routes = app.application.routes.filter { $0.pattern.hasPrefix("/admin/v1/") }
        #expect(routes.contains { $0.method != "GET" } && routes.contains { $0.method == "GET" })
        #expect(routes.contains { Self.scannerRoutes.contains("\($0.method) \($0.pattern)") })
        for route in routes {
            let forScanners = Self.scannerRoutes.contains("\(route.method) \(route.pattern)")
            let asViewer = try Self.call(app, route.method, route.pattern, token: viewer)
            if route.method == "GET" && !forScanners {
                // A made-up id is not found; the events list answers.
                let expected = route.pattern.contains("/:") ? 404 : 200
                #expect(asViewer.status == expected, "viewer \(route.method) \(route.pattern): \(asViewer.status) \(asViewer.text)")
            } else {
                #expect(asViewer.status == 403, "viewer \(route.method) \(route.pattern): \(asViewer.status)")
                #expect(asViewer.errorCode == "forbidden")
                #expect(asViewer.text.contains("viewer"))
            }
            let asScanner = try Self.call(app, route.method, route.pattern, token: scanner)
            if forScanners {
                // Past the role check: a made-up event is not found, an empty scan is refused.
                #expect([400, 404].contains(asScanner.status), "scanner \(route.method) \(route.pattern): \(asScanner.status) \(asScanner.text)")
            } else {
                #expect(asScanner.status == 403, "scanner \(route.method) \(route.pattern): \(asScanner.status)")
                #expect(asScanner.text.contains("scanner"))
            }
            let asAdmin = try Self.call(app, route.method, route.pattern, token: app.adminToken)
            #expect(![401, 403].contains(asAdmin.status), "admin \(route.method) \(route.pattern): \(asAdmin.status)")
        }
    }

    @Test("a viewer reads real data and its refused write changes nothing", arguments: Backend.allCases)
    func viewerReadsButCannotWrite(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let viewer = try Self.token(app, role: .viewer)
        let event = try app.createEvent(venue: "Tokyo Hall")
        let serial = try app.issueTicket(event: event)
        let headers = [("Authorization", "Bearer \(viewer)"), ("Content-Type", "application/json")]
        #expect(try app.request("GET", "/admin/v1/events/\(event)", headers: headers).status == 200)
        #expect(try app.request("GET", "/admin/v1/events/\(event)/tickets", headers: headers).status == 200)
        #expect(try app.request("GET", "/admin/v1/tickets/\(serial)", headers: headers).status == 200)
        let refused = try app.request("PATCH", "/admin/v1/events/\(event)", headers: headers, body: Array(#"{"venue":"Elsewhere"}"#.utf8))
        #expect(refused.status == 403)
        #expect(try app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["venue"] as? String == "Tokyo Hall")
        let cancel = try app.request("POST", "/admin/v1/tickets/\(serial)/cancel", headers: headers, body: Array("{}".utf8))
        #expect(cancel.status == 403)
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["status"] as? String == "active")
    }

    @Test("a viewer sees no download link nor barcode (ticket, list, CSV export, dashboard page and export) and may not rotate one; an admin sees them", arguments: Backend.allCases)
    func viewerSeesNoDownloadLinks(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let viewer = try Self.token(app, role: .viewer)
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let barcode = try Scanner(app).code(serial)
        let signature = String(barcode.split(separator: "~")[1])
        // The admin's answers carry the link (the control: there is one to leave out).
        let link = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String)
        let linkToken = try #require(link.split(separator: "/").last.map(String.init))
        #expect(linkToken.utf8.count == 43)
        let headers = [("Authorization", "Bearer \(viewer)")]
        let paths = ["/admin/v1/tickets/\(serial)", "/admin/v1/events/\(event)/tickets", "/admin/v1/events/\(event)/tickets.csv"]
        for path in paths {
            let asAdmin = try app.admin("GET", path)
            #expect(asAdmin.status == 200 && asAdmin.text.contains(linkToken) && asAdmin.text.contains("downloadURL"), "admin \(path)")
            let asViewer = try app.request("GET", path, headers: headers)
            #expect(asViewer.status == 200, "viewer \(path): \(asViewer.status)")
            #expect(asViewer.text.contains(serial), "viewer \(path) shows the ticket")
            #expect(!asViewer.text.contains(linkToken) && !asViewer.text.contains("downloadURL"), "viewer \(path) shows no link")
            #expect(!asViewer.text.contains(signature), "viewer \(path) shows no barcode")
        }
        // The CSV has the same columns otherwise, and its rows stay aligned with the header.
        let csv = try app.request("GET", "/admin/v1/events/\(event)/tickets.csv", headers: headers).text
        let lines = csv.split(separator: "\r\n")
        #expect(lines.count == 2)
        #expect(lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).count }.allSatisfy { $0 == lines[0].split(separator: ",").count })

        let rotate = try app.request("POST", "/admin/v1/tickets/\(serial)/download-link", headers: headers + [("Content-Type", "application/json")])
        #expect(rotate.status == 403)
        #expect(rotate.errorCode == "forbidden")
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String == link, "the refused rotation changed nothing")

        // The dashboard: the ticket page and the export, signed in as each.
        let admin = try DashboardClient.signIn(app, token: app.adminToken).client
        let reader = try DashboardClient.signIn(app, token: viewer).client
        for path in ["/admin/tickets/\(serial)", "/admin/events/\(event)/tickets.csv"] {
            let asAdmin = try admin.get(path)
            #expect(asAdmin.status == 200 && asAdmin.text.contains(linkToken), "dashboard admin \(path): \(asAdmin.status)")
            let asViewer = try reader.get(path)
            #expect(asViewer.status == 200 && asViewer.text.contains(serial), "dashboard viewer \(path): \(asViewer.status)")
            #expect(!asViewer.text.contains(linkToken) && !asViewer.text.contains(#"id="download-link""#) && !asViewer.text.contains(signature), "dashboard viewer \(path)")
        }
        let csrf = try reader.csrf(on: "/admin/tickets/\(serial)")
        let refused = try reader.post("/admin/tickets/\(serial)/download-link", [("confirm", "yes")], csrf: csrf)
        #expect(refused.status == 403)
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String == link)
    }

    @Test("token create --role, unique names, revoke by name; the roles reach the API", arguments: Backend.allCases)
    func tokenCommands(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let environment = ["DATABASE_URL": app.databaseURL]
        let name = "board-\(UUID().uuidString.prefix(6).lowercased())"
        let created = try PassServerExecutable.run(["token", "create", "--name", name, "--role", "viewer"], environment: environment)
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardError.contains("role viewer"))
        let token = created.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        #expect(try app.request("GET", "/admin/v1/events/none", headers: headers).status == 404)
        #expect(try app.request("POST", "/admin/v1/events", headers: headers, body: Array("{}".utf8)).status == 403)

        let duplicate = try PassServerExecutable.run(["token", "create", "--name", name], environment: environment)
        #expect(duplicate.status == 1)
        #expect(duplicate.standardError.contains("an active admin token is named '\(name)'"))
        #expect(try PassServerExecutable.run(["token", "create", "--name", "42"], environment: environment).status == 64)
        #expect(try PassServerExecutable.run(["token", "create", "--name", "x", "--role", "root"], environment: environment).status == 64)

        let listed = try PassServerExecutable.run(["token", "list"], environment: environment)
        #expect(listed.standardOutput.split(separator: "\n").contains { $0.contains("\t\(name)\tviewer\t") })
        let revoked = try PassServerExecutable.run(["token", "revoke", name], environment: environment)
        #expect(revoked.status == 0, "\(revoked.standardError)")
        #expect(try app.request("GET", "/admin/v1/events/none", headers: headers).status == 401)
        // The name is free again once its token is revoked.
        #expect(try PassServerExecutable.run(["token", "create", "--name", name], environment: environment).status == 0)
    }
}

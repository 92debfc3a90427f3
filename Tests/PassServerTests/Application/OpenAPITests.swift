import Foundation
import PassServerFixtures
import PassServerTesting
import SystemSupport
import Testing

@testable import PassServer

/// `openapi.yaml` describes exactly the routes the application serves, and is served itself.
@Suite("OpenAPI document", .offCooperativePool, .timeLimit(.minutes(4)))
struct OpenAPITests {
    static var documentPath: String { PassServerExecutable.packageRoot.appendingPathComponent("openapi.yaml").path }

    /// `METHOD /path/{param}` for every operation, read with PyYAML (a real YAML parser).
    static func specOperations() throws -> Set<String> {
        let script = """
            import sys, yaml
            doc = yaml.safe_load(open(sys.argv[1]))
            assert doc["openapi"].startswith("3.1"), doc["openapi"]
            for path, item in doc["paths"].items():
                for method in item:
                    if method in ("get", "put", "post", "delete", "patch", "head", "options"):
                        print(method.upper(), path)
            """
        // Debian's python3 with python3-yaml (installed by `make test`), whatever python3 is on PATH.
        let process = try ChildProcess("/usr/bin/python3", ["-c", script, documentPath], standardOutput: .pipe, standardError: .pipe)
        let (data, errors) = try process.readToEnd()
        let errorText = String(decoding: errors, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw AdminSupport.Failure(description: "python3/yaml failed: \(errorText)") }
        return Set(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// Whether a routed "METHOD /path" is one of the dashboard's pages for browsers (HTML, forms and
    /// the images of the design page's preview), which the document leaves out; `/assets/{name}` and the dashboard's JSON (the job progress,
    /// the scanner page's calls under `/admin/scan/`) are in it.
    static func isWebPage(_ route: String) -> Bool {
        let path = route.split(separator: " ").last.map(String.init) ?? ""
        return path.hasPrefix("/admin") && !path.hasPrefix("/admin/v1/") && path != "/admin/jobs/{jobId}/progress" && !path.hasPrefix("/admin/scan/")
    }

    /// `/a/:b/c` → `/a/{b}/c`.
    static func openAPIPath(_ pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            .joined(separator: "/")
    }

    @Test("every routed method and path is in the spec, and the spec has nothing else", arguments: Backend.allCases)
    func routesMatchSpec(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let routed = Set(app.application.routes.map { "\($0.method) \(Self.openAPIPath($0.pattern))" }).filter { !Self.isWebPage($0) }
        let documented = try Self.specOperations()
        #expect(routed.count >= 18)
        #expect(routed.subtracting(documented).sorted() == [], "routes missing from openapi.yaml")
        #expect(documented.subtracting(routed).sorted() == [], "documented operations that are not routed")
    }

    @Test("admin schemas use the field names the server writes and accepts", arguments: Backend.allCases)
    func schemaFieldNames(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let document = try String(contentsOfFile: Self.documentPath, encoding: .utf8)
        let event = try app.createEvent()
        let ticket = try #require(try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"A","seat":"S"}"#).jsonObject)
        let shown = try #require(try app.admin("GET", "/admin/v1/events/\(event)").jsonObject)
        let names = Set(ticket.keys).union(shown.keys).union((shown["counts"] as? [String: Any])?.keys ?? [:].keys)
        for name in names { #expect(document.contains("\(name):"), "\(name) is not described") }
        #expect(document.contains("bearer"))
    }

    @Test("GET /openapi.yaml serves the file", arguments: Backend.allCases)
    func served(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let response = try app.request("GET", "/openapi.yaml")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/yaml")
        #expect(response.body == Array(try Data(contentsOf: URL(fileURLWithPath: Self.documentPath))))
    }
}

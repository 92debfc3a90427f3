import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// `/readyz` over HTTP: the documented body, every reason as a list, warnings that keep it 200,
/// and the start-up warning about Apple's sandbox.
@Suite("Readiness endpoint", .offCooperativePool, .timeLimit(.minutes(4)))
struct ReadinessEndpointTests {
    @Test("ready: 200 with empty lists; problems: 503 listing each; warnings listed without failing", arguments: Backend.allCases)
    func body(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let ready = try app.request("GET", "/readyz")
        #expect(ready.status == 200)
        #expect(ready.text == #"{"reasons":[],"status":"ready","warnings":[]}"#)

        let readiness = app.application.readiness
        readiness.report("apns", problem: "sending halted")
        readiness.report("zeta", problem: "second problem")
        readiness.warn("certificates", warning: "expires in 12 days")
        let unready = try app.request("GET", "/readyz")
        #expect(unready.status == 503)
        let body = try #require(unready.jsonObject)
        #expect(body["status"] as? String == "not_ready")
        #expect(body["reasons"] as? [[String: String]] == [
            ["component": "apns", "message": "sending halted"], ["component": "zeta", "message": "second problem"],
        ])
        #expect(body["warnings"] as? [[String: String]] == [["component": "certificates", "message": "expires in 12 days"]])
        let error = try #require(body["error"] as? [String: String])
        #expect(error["code"] == "not_ready")
        #expect(error["message"] == "apns: sending halted; zeta: second problem")
        let document = try String(contentsOfFile: OpenAPITests.documentPath, encoding: .utf8)
        #expect(document.contains("$ref: \"#/components/schemas/Readiness\""))
        for key in Array(body.keys) + ["component", "message"] {
            #expect(document.contains("\(key):"), "\(key) is not described in openapi.yaml")
        }

        readiness.report("apns", problem: nil)
        readiness.report("zeta", problem: nil)
        let warned = try app.request("GET", "/readyz")
        #expect(warned.status == 200)
        #expect(warned.jsonObject?["warnings"] as? [[String: String]] == [["component": "certificates", "message": "expires in 12 days"]])
    }

    @Test("an unavailable database is a reason, together with the others")
    func databaseUnreachable() throws {
        let app = try TestApp.start(.postgres)
        defer { app.stop() }
        // A closed pool answers every call with `unavailable`, as PostgreSQL being down does.
        app.store.close()
        app.application.readiness.report("apns", problem: "sending halted")
        let response = try app.request("GET", "/readyz")
        #expect(response.status == 503)
        #expect(response.jsonObject?["reasons"] as? [[String: String]] == [
            ["component": "database", "message": "unreachable"], ["component": "apns", "message": "sending halted"],
        ])
    }

    @Test("APNS_URL at Apple's sandbox logs a warning at start; the production host does not",
          arguments: [
              ("https://api.sandbox.push.apple.com", true), ("https://API.development.push.apple.com:443", true), ("https://api.push.apple.com", false),
          ])
    func sandboxWarning(url: String, warns: Bool) throws {
        let app = try TestApp.start(.sqlite) { configuration in
            configuration.apns.mode = .live
            configuration.apns.url = url
        }
        defer { app.stop() }
        let warned = app.logs.lines.contains { $0.contains("sandbox") && $0.contains("never delivers pass updates") }
        #expect(warned == warns)
    }
}

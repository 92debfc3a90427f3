import Foundation
import Logging
import PassServerTesting
import Testing

@testable import HTTPServer

/// Secrets in paths never reach the log, however the path is spelled or answered.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct LoggedPathTests {
    static let token = "SECRETTOKENVALUE12345"

    @Test func downloadTokensAreRedactedMatchedOrNot() throws {
        var router = echoRouter()
        router.get("/download/:downloadToken") { _ in .text("file") }
        try TestServer.with(router) { (server: TestServer) throws in
            let targets: [(target: String, status: Int)] = [
                ("/download/\(Self.token)", 200),
                ("/download/\(Self.token)?utm=\(Self.token)", 200),  // query
                ("/download/\(Self.token)/extra", 404),
                ("/download/\(Self.token)/", 404),
                ("//download/\(Self.token)", 404),
                ("/DOWNLOAD/\(Self.token)", 404),
                ("/%64ownload/\(Self.token)", 200),  // percent-encoded literal
                ("/download/%53ECRETTOKENVALUE12345", 200),  // percent-encoded token
                ("/download/\(Self.token)%zz", 400),
                ("http://passes.example/download/\(Self.token)", 200),  // absolute form
            ]
            // Each answered as noted: matched, unmatched and refused paths all reach the log.
            for (target, status) in targets {
                #expect(try server.client().request("GET", target).status == status, "\(target)")
            }
            #expect(try server.client().request("HEAD", "/download/\(Self.token)").status == 200)
            #expect(try server.client().request("POST", "/download/\(Self.token)").status == 405)
            let lines = server.sink.lines.filter { $0.contains(" request ") }
            #expect(lines.count == targets.count + 2)
            let all = server.sink.lines.joined(separator: "\n")
            #expect(!all.contains("TOKENVALUE"), "\(all)")
            #expect(lines.filter { $0.contains("…") }.count == targets.count + 2)
        }
    }

    @Test func redactionRulesAsAPureFunction() {
        let logged = LoggedPath(routes: [Router.parse("/download/:downloadToken"), Router.parse("/v1/:kind/x/:apiToken")])
        #expect(logged.redact("/download/abcdefgh") == "/download/abcd…")
        #expect(logged.redact("/download/abcdefgh/more/x") == "/download/abcd…")
        #expect(logged.redact("/download/abc") == "/download/abc", "four characters or fewer are no secret")
        #expect(logged.redact("/v1/any/x/abcdefgh") == "/v1/any/x/abcd…")
        #expect(logged.redact("/v1/any/y/abcdefgh") == "/v1/any/y/abcdefgh")
        #expect(logged.redact("/healthz") == "/healthz")
        #expect(logged.redact("/" + String(repeating: "a", count: 2_000)).count == LoggedPath.maxLength)
    }

    @Test func controlBytesInATargetNeverReachTheLogRaw() throws {
        try TestServer.with(echoRouter()) { server in
            for target in ["/x\u{1B}[2J\u{1B}[31mred", "/x%0D%0Afake%20line", "/x\u{7F}\u{85}"] {
                let client = try server.client(timeout: 5)
                client.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try? client.readResponse()
            }
            #expect(server.isHealthy())
            let lines = server.sink.lines
            // Every one of the three requests was logged, so each was checked below.
            #expect(lines.filter { $0.contains(" request ") && ($0.contains("path=/x") || $0.contains("path=\"/x")) }.count == 3, "\(lines)")
            #expect(lines.contains { $0.contains("path=/x%0D%0Afake%20line") })
            #expect(lines.allSatisfy { !$0.unicodeScalars.contains(where: LogText.mustEscape) }, "\(lines)")
        }
    }
}

import Foundation
import HTTPServer
import Logging
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

@Suite("Device API: /v1/log", .offCooperativePool, .timeLimit(.minutes(3)))
struct DeviceLogTests {
    static func postLog(_ app: TestApp, _ body: String, client: String? = nil) throws -> TestResponse {
        var headers = [("Content-Type", "application/json")]
        if let client { headers.append(("X-Forwarded-For", client)) }
        return try app.request("POST", "/v1/log", headers: headers, body: Array(body.utf8))
    }

    /// The stored messages, newest first, read straight from the table.
    static func stored(_ app: TestApp) throws -> [String] {
        try app.store.execute("SELECT message FROM device_logs ORDER BY id DESC").map { try $0.string("message") }
    }

    @Test("messages are stored and logged at warning level; the table keeps only the newest", arguments: Backend.allCases)
    func storedAndBounded(backend: Backend) throws {
        let app = try TestApp.start(backend) { $0.deviceLogCapacity = 5 }
        defer { app.stop() }
        let marker = UUID().uuidString.prefix(8)
        let first = (1...3).map { "phone-error-\(marker)-\($0)" }
        let response = try Self.postLog(app, #"{"logs":[\#(first.map { "\"\($0)\"" }.joined(separator: ","))]}"#)
        #expect(response.status == 200)
        #expect(Set(try Self.stored(app)) == Set(first))
        for message in first {
            let lines = app.logs.lines.filter { $0.contains(message) }
            #expect(lines.count == 1, "\(message) logged once")
            #expect(lines.first?.contains(" warning ") == true, "\(lines)")
        }

        let second = (4...7).map { "phone-error-\(marker)-\($0)" }
        #expect(try Self.postLog(app, #"{"logs":[\#(second.map { "\"\($0)\"" }.joined(separator: ","))]}"#).status == 200)
        let kept = try Self.stored(app)
        #expect(kept.count == 5)
        #expect(Set(kept) == Set((3...7).map { "phone-error-\(marker)-\($0)" }), "the two oldest were dropped")
        #expect(kept.first == "phone-error-\(marker)-7", "newest first")
    }

    @Test("malformed bodies are 400; odd content is stored safely; never a 500", arguments: Backend.allCases)
    func malformed(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let cases: [(body: String, code: String)] = [
            (#"{"logs": "#, "malformed_json"),
            (#"{"logs": "one line"}"#, "malformed_json"),
            (#"{"logs": [1, 2]}"#, "malformed_json"),
            (#"{"messages": ["x"]}"#, "missing_logs"),
            ("", "missing_body"),
        ]
        for testCase in cases {
            let response = try Self.postLog(app, testCase.body)
            #expect(response.status == 400, "\(testCase.body)")
            #expect(response.errorCode == testCase.code, "\(testCase.body): \(response.text)")
        }
        let wrongType = try app.request("POST", "/v1/log", headers: [("Content-Type", "text/plain")], body: Array(#"{"logs":["x"]}"#.utf8))
        #expect(wrongType.status == 400)

        // Characters a database may refuse (NUL), quotes, newlines and non-ASCII text are all kept or made safe.
        let odd = #"{"logs":["nul\u0000byte", "quote ' \" and\nnewline", "日本語 ✓", ""]}"#
        #expect(try Self.postLog(app, odd).status == 200)
        let stored = try Self.stored(app)
        #expect(stored.contains("quote ' \" and\nnewline"))
        #expect(stored.contains("日本語 ✓"))
        #expect(stored.contains { $0.hasPrefix("nul") && $0.hasSuffix("byte") && !$0.contains("\u{0}") })
        // An empty list is fine and stores nothing (the table, read the same way, held the lines above).
        let before = stored.count
        #expect(before == 4)
        #expect(try Self.postLog(app, #"{"logs":[]}"#).status == 200)
        #expect(try Self.stored(app).count == before)
        // Overlong lines are truncated to 1,024 bytes on a scalar boundary and marked, not refused.
        let long = String(repeating: "L", count: 1_023) + String(repeating: "é", count: 2_000)
        #expect(try Self.postLog(app, #"{"logs":["\#(long)"]}"#).status == 200)
        let kept = try #require(try Self.stored(app).first)
        #expect(kept == String(repeating: "L", count: 1_023) + LogText.truncationMarker, "half of an é is never kept")
        #expect(app.logs.lines.contains { $0.contains("LLL" + LogText.truncationMarker) })
    }

    @Test("the rate limit answers 429 JSON after the burst, per client", arguments: Backend.allCases)
    func rateLimited(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        var statuses: [Int] = []
        var limited: TestResponse?
        for index in 0..<40 {
            let response = try Self.postLog(app, #"{"logs":["burst \#(index)"]}"#, client: "198.51.100.7")
            statuses.append(response.status)
            if response.status == 429 {
                limited = response
                break
            }
        }
        let refusal = try #require(limited, "a 429 within 40 requests: \(statuses)")
        #expect(statuses.dropLast().allSatisfy { $0 == 200 })
        #expect(statuses.count > 10, "the burst lets a phone report a handful of lines first")
        #expect(refusal.errorCode == "rate_limited")
        #expect(refusal.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(refusal.header("Retry-After") != nil)
        // Another client is not affected.
        #expect(try Self.postLog(app, #"{"logs":["other client"]}"#, client: "198.51.100.8").status == 200)
    }

    @Test("a forged line in a phone's message stays one escaped log line", arguments: Backend.allCases)
    func forgedLinesAreEscaped(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let marker = UUID().uuidString.prefix(8)
        let forged = "2026-01-01T00:00:00.000Z info http: request method=GET path=/admin status=200"
        // JSON escapes for CR LF (one Swift Character), LF, ESC, NEL (C1), LINE SEPARATOR, DEL and a bidi override.
        let separators = [#"\r\n"#, #"\n"#, #"\r"#, #"\u001b[2K\r"#, #"\u0085"#, #"\u2028"#, #"\u2029"#, #"\u007f"#, #"\u202e"#]
        let messages = separators.enumerated().map { #""\#(marker)-\#($0.offset)\#($0.element)\#(forged)""# }
        #expect(try Self.postLog(app, #"{"logs":[\#(messages.joined(separator: ","))]}"#).status == 200)
        for index in separators.indices {
            let lines = app.logs.lines.filter { $0.contains("\(marker)-\(index)") }
            #expect(lines.count == 1, "message \(index) is one line")
            let line = try #require(lines.first)
            #expect(!line.unicodeScalars.contains(where: LogText.mustEscape), "raw control in \(line.debugDescription)")
            #expect(line.contains(forged), "the text is kept, escaped, inside the one line")
        }
        #expect(app.logs.lines.allSatisfy { !$0.unicodeScalars.contains(where: LogText.mustEscape) })
        // The stored copy keeps the phone's text as sent.
        #expect(try Self.stored(app).contains("\(marker)-0\r\n\(forged)"))
    }

    @Test("prepended X-Forwarded-For entries do not escape the rate limit", arguments: Backend.allCases)
    func forwardedForCannotForgeAFreshClient(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        // Through the trusted proxy (127.0.0.1, loopback is trusted by default), the attacker
        // prepends a different address each time; the proxy appends the real one last.
        var statuses: [Int] = []
        for index in 0..<40 {
            let chain = "10.\(index).0.1, 192.0.2.\(index), 198.51.100.66"
            let status = try Self.postLog(app, #"{"logs":["spoof \#(index)"]}"#, client: chain).status
            statuses.append(status)
            if status == 429 { break }
        }
        #expect(statuses.last == 429, "the real client's bucket runs dry: \(statuses)")
        #expect(statuses.count <= 25, "after about the burst of 20: \(statuses)")
        // Its neighbour behind the same proxy still has its own bucket.
        #expect(try Self.postLog(app, #"{"logs":["neighbour"]}"#, client: "198.51.100.67").status == 200)
        #expect(app.logs.lines.contains { $0.contains("client=198.51.100.66") && $0.contains("peer=127.0.0.1") })
    }

    @Test("an untrusted peer's X-Forwarded-For is ignored", arguments: Backend.allCases)
    func untrustedPeerIsTheClient(backend: Backend) throws {
        let app = try TestApp.start(backend) { $0.http.trustedProxies = [AddressRange("127.0.0.1/32")].compactMap { $0 } }
        defer { app.stop() }
        var statuses: [Int] = []
        for index in 0..<40 {
            let response = try TestClient(port: app.port, timeout: 30, source: "127.0.0.2").request(
                "POST", "/v1/log", headers: [("Content-Type", "application/json"), ("X-Forwarded-For", "203.0.113.\(index)")],
                body: Array(#"{"logs":["direct \#(index)"]}"#.utf8)
            )
            statuses.append(response.status)
            if response.status == 429 { break }
        }
        #expect(statuses.last == 429, "127.0.0.2 is the client whatever it forwards: \(statuses)")
        #expect(statuses.count <= 25, "\(statuses)")
        #expect(app.logs.lines.contains { $0.contains("client=127.0.0.2") && $0.contains("peer=127.0.0.2") })
    }
}

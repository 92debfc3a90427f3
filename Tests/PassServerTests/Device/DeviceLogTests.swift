import Foundation
import PassServerTesting
import Storage
import Testing

@testable import PassServer

@Suite("Device API: /v1/log")
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
        // An empty list is fine and stores nothing.
        #expect(try Self.postLog(app, #"{"logs":[]}"#).status == 200)
        // Overlong lines are truncated, not refused.
        let long = String(repeating: "L", count: 5_000)
        #expect(try Self.postLog(app, #"{"logs":["\#(long)"]}"#).status == 200)
        #expect(try Self.stored(app).first?.count == 2_000)
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
}

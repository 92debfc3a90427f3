import Foundation
import PassServerFixtures
import PassServerTesting
import Synchronization
import Testing

/// The page tests' harness: headless Chromium through Tests/Browser/browser.py, against a running server.
@Suite("Web: browser harness", .offCooperativePool, .serialized, .tags(.endToEnd))
struct BrowserHarnessTests {
    @Test("every helper works: phone size, Accept-Language, labels, typing, clicks, Tab, cookies, dialogs, the server", .timeLimit(.minutes(4)))
    func helpers() async throws {
        let app = try await TestApp.startOffPool(.sqlite)
        defer { app.stop() }
        try await BrowserScript.expectPasses("harness_selftest.py", serverURL: app.baseURL, name: "harness-selftest")
    }

    @Test("a failing script exits 1, says why, and leaves a screenshot of the page", .timeLimit(.minutes(4)))
    func failureLeavesScreenshot() async throws {
        let app = try await TestApp.startOffPool(.sqlite)
        defer { app.stop() }
        let outcome = try await BrowserScript.run(
            "harness_selftest.py", serverURL: app.baseURL, name: "harness-failing", environment: ["HARNESS_MODE": "fail"]
        )
        #expect(outcome.status == 1, "\(outcome.output)")
        #expect(!outcome.timedOut)
        #expect(outcome.output.contains("text that is not on the page"), "\(outcome.output)")
        let screenshot = outcome.outputDirectory + "/harness-failure.png"
        let png = try #require(FileManager.default.contents(atPath: screenshot), "no screenshot at \(screenshot)")
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
        #expect(FileManager.default.fileExists(atPath: outcome.outputDirectory + "/harness-failure.html"))
        try? FileManager.default.removeItem(atPath: outcome.outputDirectory)
    }

    @Test("a script's requests reach the test mid-script, in order, and the test's answers reach the script", .timeLimit(.minutes(2)))
    func requests() async throws {
        final class Seen: Sendable {
            let names = Mutex<[String]>([])
        }
        struct Refusal: Error, CustomStringConvertible {
            var description: String { "no thanks" }
        }
        let seen = Seen()
        let outcome = try await BrowserScript.run(
            "harness_selftest.py", serverURL: "http://127.0.0.1:9", name: "harness-requests", environment: ["HARNESS_MODE": "ask"]
        ) { name in
            seen.names.withLock { $0.append(name) }
            if name == "refuse-me" { throw Refusal() }
        }
        #expect(outcome.passed, "\(outcome.output)")
        #expect(seen.names.withLock { $0 } == ["ping", "refuse-me"])
        #expect(try String(contentsOfFile: outcome.outputDirectory + "/reply-refuse-me", encoding: .utf8) == "refuse-me failed: no thanks")
        try? FileManager.default.removeItem(atPath: outcome.outputDirectory)
    }

    @Test("a script that overruns its time limit is stopped and reported", .timeLimit(.minutes(2)))
    func timeLimit() async throws {
        let outcome = try await BrowserScript.run(
            "harness_selftest.py", serverURL: "http://127.0.0.1:9", name: "harness-timeout",
            environment: ["HARNESS_MODE": "fail"], timeLimit: .milliseconds(300)
        )
        #expect(outcome.timedOut)
        #expect(!outcome.passed)
        try? FileManager.default.removeItem(atPath: outcome.outputDirectory)
    }
}

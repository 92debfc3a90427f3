import Foundation
import PassServerTesting
import Testing

/// The page tests' harness: headless Chromium through Tests/Browser/browser.py, against a running server.
@Suite("Web: browser harness", .offCooperativePool, .serialized)
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

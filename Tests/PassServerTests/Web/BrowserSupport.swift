import Foundation
import PassServerFixtures
import PassServerTesting
import SystemSupport
import Testing

/// Runs the page tests' Python scripts (Tests/Browser/, on the `browser` module there) in real
/// headless Chromium against a running server.
///
/// A script gets the server's URL as `SERVER_URL`, its output directory as `OUTPUT_DIR`
/// (`.build/test-output/browser/<name>/`, emptied first) and whatever else the test passes in its
/// environment. On failure the directory holds a screenshot and the source of every open page.
///
/// Chromium is heavy: one script runs at a time, whichever suite it comes from.
///
/// A script may ask the test to act mid-script (stop the server, start it again): `browser.ask_test`
/// prints `browser-test-request: <name>` and waits for the file `<OUTPUT_DIR>/reply-<name>`, which
/// the test writes once its `requests` handler has run ("ok", or why it failed).
enum BrowserScript {
    /// What a script prints to ask the test for something (browser.py's `ask_test`).
    static let requestPrefix = "browser-test-request: "

    /// Runs what a script asked for, by name.
    typealias Requests = @Sendable (String) async throws -> Void

    struct Outcome: Sendable {
        let status: Int32
        let output: String
        let outputDirectory: String
        let timedOut: Bool

        var passed: Bool { status == 0 && !timedOut }
    }

    /// One browser at a time in this process.
    static let slot = TestSlots(count: 1)

    static var scriptsDirectory: URL { PassServerExecutable.packageRoot.appendingPathComponent("Tests/Browser") }

    static func outputDirectory(for name: String) -> String {
        PassServerExecutable.packageRoot.appendingPathComponent(".build/test-output/browser/\(name)").path
    }

    /// Runs `Tests/Browser/<script>` and returns how it ended, killing it after `timeLimit`.
    static func run(
        _ script: String, serverURL: String, name: String, environment extra: [String: String] = [:], timeLimit: Duration = .seconds(180),
        requests: Requests? = nil
    ) async throws -> Outcome {
        try await slot.withSlot {
            let directory = outputDirectory(for: name)
            try? FileManager.default.removeItem(atPath: directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var environment = ProcessInfo.processInfo.environment
            environment["SERVER_URL"] = serverURL
            environment["OUTPUT_DIR"] = directory
            environment["PYTHONPATH"] = scriptsDirectory.path
            environment["PYTHONDONTWRITEBYTECODE"] = "1"
            environment["PYTHONUNBUFFERED"] = "1"
            environment.merge(extra) { $1 }
            let log = directory + "/script.log"
            // Debian's python3, which python3-selenium installs into.
            let process = try ChildProcess(
                "/usr/bin/python3", [scriptsDirectory.appendingPathComponent(script).path],
                environment: environment, directory: PassServerExecutable.packageRoot.path,
                standardOutput: .file(log), standardError: .file(log + ".err")
            )
            let deadline = ContinuousClock.now + timeLimit
            var answered = 0
            do {
                while process.isRunning && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                    answered += try await answer(log: log, directory: directory, after: answered, requests)
                }
            } catch {
                // The test was cancelled (its time limit): leave no browser behind.
                stop(process)
                throw error
            }
            let timedOut = process.isRunning
            if timedOut { stop(process) }
            let status = process.waitUntilExit().status
            let output = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? "")
            return Outcome(status: status, output: output, outputDirectory: directory, timedOut: timedOut)
        }
    }

    /// Runs the requests the script printed after the first `after` and writes each one's reply
    /// file (atomically: the script sees a whole reply or none); returns how many it answered.
    private static func answer(log: String, directory: String, after: Int, _ requests: Requests?) async throws -> Int {
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // Only whole lines: the script may be in the middle of printing one.
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let names = lines.filter { $0.hasPrefix(requestPrefix) }.map { String($0.dropFirst(requestPrefix.count)) }
        guard names.count > after else { return 0 }
        for name in names[after...] {
            var reply = "ok"
            if name.isEmpty || !name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) {
                reply = "not a request name: \(name)"
            } else if let requests {
                do { try await requests(name) } catch { reply = "\(name) failed: \(error)" }
            } else {
                reply = "this test answers no requests"
            }
            let path = directory + "/reply-" + name
            try reply.write(toFile: path + ".tmp", atomically: false, encoding: .utf8)
            guard rename(path + ".tmp", path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        return names.count - after
    }

    /// SIGTERM lets the script close Chromium (browser.main quits every browser); SIGKILL if it
    /// has not gone within ten seconds. Blocks: called when the script has overrun.
    private static func stop(_ process: ChildProcess) {
        process.signal(SIGTERM)
        let grace = ContinuousClock.now + .seconds(10)
        while process.isRunning && ContinuousClock.now < grace { usleep(100_000) }
        if process.isRunning { process.signal(SIGKILL) }
        _ = process.waitUntilExit()
    }

    /// Runs a script and records an issue, with the script's output and where its screenshots are,
    /// unless it passes.
    static func expectPasses(
        _ script: String, serverURL: String, name: String, environment: [String: String] = [:], timeLimit: Duration = .seconds(180),
        requests: Requests? = nil, keepingOutput: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let outcome = try await run(script, serverURL: serverURL, name: name, environment: environment, timeLimit: timeLimit, requests: requests)
        if outcome.timedOut {
            Issue.record("\(script) did not finish within \(timeLimit); screenshots in \(outcome.outputDirectory)\n\(outcome.output.suffix(8_000))", sourceLocation: sourceLocation)
        } else if outcome.status != 0 {
            Issue.record("\(script) failed (exit \(outcome.status)); screenshots in \(outcome.outputDirectory)\n\(outcome.output.suffix(8_000))", sourceLocation: sourceLocation)
        } else if !keepingOutput {
            // Nothing to look at after a pass (unless the pictures are the point).
            try? FileManager.default.removeItem(atPath: outcome.outputDirectory)
        }
    }
}

extension TestApp {
    /// `http://127.0.0.1:<port>`: where a browser reaches this app.
    var baseURL: String { "http://127.0.0.1:\(port)" }
}

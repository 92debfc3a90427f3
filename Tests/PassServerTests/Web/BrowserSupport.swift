import Foundation
import PassServerTesting
import Testing

/// Runs the page tests' Python scripts (Tests/Browser/, on the `browser` module there) in real
/// headless Chromium against a running server.
///
/// A script gets the server's URL as `SERVER_URL`, its output directory as `OUTPUT_DIR`
/// (`.build/test-output/browser/<name>/`, emptied first) and whatever else the test passes in its
/// environment. On failure the directory holds a screenshot and the source of every open page.
///
/// Chromium is heavy: one script runs at a time, whichever suite it comes from.
enum BrowserScript {
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
        _ script: String, serverURL: String, name: String, environment extra: [String: String] = [:], timeLimit: Duration = .seconds(180)
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
            while process.isRunning && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let timedOut = process.isRunning
            if timedOut {
                // SIGTERM lets the script close Chromium; SIGKILL if it does not go.
                process.signal(SIGTERM)
                let grace = ContinuousClock.now + .seconds(10)
                while process.isRunning && ContinuousClock.now < grace { try await Task.sleep(for: .milliseconds(100)) }
                if process.isRunning { process.signal(SIGKILL) }
            }
            let status = process.waitUntilExit().status
            let output = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? "")
            return Outcome(status: status, output: output, outputDirectory: directory, timedOut: timedOut)
        }
    }

    /// Runs a script and records an issue, with the script's output and where its screenshots are,
    /// unless it passes.
    static func expectPasses(
        _ script: String, serverURL: String, name: String, environment: [String: String] = [:], timeLimit: Duration = .seconds(180),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let outcome = try await run(script, serverURL: serverURL, name: name, environment: environment, timeLimit: timeLimit)
        if outcome.timedOut {
            Issue.record("\(script) did not finish within \(timeLimit); screenshots in \(outcome.outputDirectory)\n\(outcome.output.suffix(8_000))", sourceLocation: sourceLocation)
        } else if outcome.status != 0 {
            Issue.record("\(script) failed (exit \(outcome.status)); screenshots in \(outcome.outputDirectory)\n\(outcome.output.suffix(8_000))", sourceLocation: sourceLocation)
        } else {
            // Nothing to look at after a pass.
            try? FileManager.default.removeItem(atPath: outcome.outputDirectory)
        }
    }
}

extension TestApp {
    /// `http://127.0.0.1:<port>`: where a browser reaches this app.
    var baseURL: String { "http://127.0.0.1:\(port)" }
}

import Foundation
import PassServerTesting
import SystemSupport
import Testing

/// `scripts/fuzz.py --bounded`: schemathesis against the real `pass-server` binary on PostgreSQL,
/// with every check, positive and negative cases and stateful link sequences. Any server error,
/// schema violation, undocumented status, accepted invalid input or refused valid input fails.
@Suite("API conformance (schemathesis)", .offCooperativePool)
struct APIConformanceTests {
    /// `schemathesis: N cases (P positive, Q negative), F failures, E server errors logged`.
    struct Summary: Equatable {
        var cases: Int
        var positive: Int
        var negative: Int
        var failures: Int
        var serverErrors: Int

        init?(_ output: String) {
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("schemathesis: ") }) else { return nil }
            let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            guard numbers.count == 5 else { return nil }
            (cases, positive, negative, failures, serverErrors) = (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4])
        }
    }

    /// `dashboard: N cases, F failures` (scripts/fuzz_dashboard.py, the dashboard's forms).
    struct DashboardSummary: Equatable {
        var cases: Int
        var failures: Int

        init?(_ output: String) {
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("dashboard: ") && $0.hasSuffix(" failures") })
            else { return nil }
            let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            guard numbers.count == 2 else { return nil }
            (cases, failures) = (numbers[0], numbers[1])
        }
    }

    @Test("the bounded run ends with 0 failures and 0 server errors", .timeLimit(.minutes(10)))
    func boundedRun() async throws {
        let database = try TestPostgres.createDatabase()
        defer { try? TestPostgres.dropDatabase(url: database) }
        let directory = try TestCertificates.temporaryDirectory(prefix: "fuzz-output")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outputPath = directory + "/fuzz.log"
                // Debian's python3 (`make test` installs python3-venv); the script makes its own virtualenv.
        let process = try ChildProcess(
            "/usr/bin/python3",
            [
                PassServerExecutable.packageRoot.appendingPathComponent("scripts/fuzz.py").path, "--bounded",
                "--binary", PassServerExecutable.path, "--database-url", database,
            ],
            directory: PassServerExecutable.packageRoot.path,
            standardOutput: .file(outputPath), standardError: .file(outputPath + ".err")
        )
        // Wait without holding a thread of the cooperative pool; the run takes one to three minutes.
        let deadline = Date().addingTimeInterval(540)
        while process.isRunning && Date() < deadline {
            try await Task.sleep(for: .milliseconds(500))
        }
        if process.isRunning {
            process.signal(SIGTERM)
            _ = process.waitUntilExit()
            Issue.record("scripts/fuzz.py --bounded did not finish within 9 minutes")
        }
        let errorText = (try? String(contentsOfFile: outputPath + ".err", encoding: .utf8)) ?? ""
        let text = try String(contentsOfFile: outputPath, encoding: .utf8) + errorText
        let summary = try #require(Summary(text), "no summary line in:\n\(text.suffix(4_000))")
        print("API conformance: \(summary.cases) schemathesis cases (\(summary.positive) positive, \(summary.negative) negative), \(summary.failures) failures")
        #expect(process.terminationStatus == 0, "\(text.suffix(20_000))")
        #expect(summary.failures == 0)
        #expect(summary.serverErrors == 0)
        #expect(summary.cases >= 1_000, "a bounded run is a few thousand cases")
        #expect(summary.positive > 0 && summary.negative > 0)
        let dashboard = try #require(DashboardSummary(text), "no dashboard summary line in:\n\(text.suffix(4_000))")
        print("API conformance: \(dashboard.cases) dashboard form and page cases, \(dashboard.failures) failures")
        #expect(dashboard.cases >= 300, "the bounded run posts 300 dashboard cases")
        #expect(dashboard.failures == 0)
    }

    @Test("the summary line is read as the script prints it")
    func summaryParsing() {
        let summary = Summary("noise\nschemathesis: 2914 cases (1799 positive, 1115 negative), 1 failures, 0 server errors logged\n")
        #expect(summary?.cases == 2914)
        #expect(summary?.positive == 1799)
        #expect(summary?.negative == 1115)
        #expect(summary?.failures == 1)
        #expect(summary?.serverErrors == 0)
        #expect(Summary("schemathesis: broken") == nil)
        let dashboard = DashboardSummary("dashboard: POST /admin/events: 3 cases (303: 3)\ndashboard: 300 cases, 2 failures\n")
        #expect(dashboard?.cases == 300)
        #expect(dashboard?.failures == 2)
        #expect(DashboardSummary("dashboard: finished in 3 s") == nil)
    }
}

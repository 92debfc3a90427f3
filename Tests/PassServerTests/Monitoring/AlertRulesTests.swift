import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// `deploy/prometheus-alerts.yml`: Prometheus accepts it, its cases fire as intended, and every
/// metric it names is one the server exports. `make test` installs promtool (Debian `prometheus`);
/// without it these tests fail, never skip.
@Suite("Prometheus alert rules", .offCooperativePool, .timeLimit(.minutes(3)))
struct AlertRulesTests {
    static let promtool = "/usr/bin/promtool"
    static var deploy: String { PassServerExecutable.packageRoot.appendingPathComponent("deploy").path }

    private static func requirePromtool() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: promtool),
            "promtool is missing: install Debian's prometheus package (make test-deps does)"
        )
    }

    @Test("promtool check rules accepts the file")
    func checkRules() throws {
        try Self.requirePromtool()
        let result = try run(Self.promtool, ["check", "rules", "prometheus-alerts.yml"], in: Self.deploy)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("SUCCESS: 11 rules found"), "\(result.output)")
    }

    @Test("promtool test rules: each alert fires on its case and not on the healthy series")
    func unitCases() throws {
        try Self.requirePromtool()
        let result = try run(Self.promtool, ["test", "rules", "prometheus-alerts.test.yml"], in: Self.deploy)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("SUCCESS"), "\(result.output)")
    }

    @Test("every metric the rules name is exported by a running server")
    func namesExist() throws {
        let rules = try String(contentsOfFile: Self.deploy + "/prometheus-alerts.yml", encoding: .utf8)
        let referenced = Set(rules.matches(of: /passserver_[a-z0-9_]+/).map { String($0.output) })
        #expect(referenced.count >= 6, "\(referenced)")

        let app = try TestApp.start(.sqlite)
        defer { app.stop() }
        #expect(try app.request("GET", "/healthz").status == 200)
        let text = try app.request("GET", "/metrics").text
        var exported: Set<String> = []
        for line in text.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            guard parts.count == 4 else { continue }
            exported.insert(String(parts[2]))
            if parts[3] == "histogram" {
                for suffix in ["_bucket", "_sum", "_count"] { exported.insert(String(parts[2]) + suffix) }
            }
        }
        for name in referenced.sorted() {
            #expect(exported.contains(name), "\(name) is used by an alert but /metrics does not export it")
            #expect(text.split(separator: "\n").contains { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }, "\(name) has no sample")
        }
    }
}

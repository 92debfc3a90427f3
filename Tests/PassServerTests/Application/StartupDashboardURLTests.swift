import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

/// What `make run` (`pass-server serve --development`) prints at start-up names the dashboard.
@Suite("Start-up: the dashboard's address", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct StartupDashboardURLTests {
    @Test("the start-up log has a line with <PUBLIC_URL>/admin/")
    func dashboardURL() async throws {
        let directory = URL(fileURLWithPath: try TestCertificates.temporaryDirectory(prefix: "dashboard-url"))
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try PassServerExecutable.run(["certs", "dev", "--dir", "Certificates/dev"], currentDirectory: directory)
        try #require(certificates.status == 0, "\(certificates.standardError)")
        let (server, status) = try await ServerProcess.runDevelopment(in: directory, environment: ["PUBLIC_URL": "http://127.0.0.1:18080/"]) {
            $0.standardError.contains("/admin/")
        }
        #expect(status == 0, "\(server.standardError.suffix(2_000))")
        let lines = server.standardError.split(separator: "\n").filter { $0.contains("dashboard") }
        #expect(lines.count == 1, "\(server.standardError.suffix(3_000))")
        #expect(lines.first?.contains("http://127.0.0.1:18080/admin/") == true, "\(lines)")
        #expect(lines.first?.contains("http://127.0.0.1:18080//admin/") == false, "\(lines)")
    }
}

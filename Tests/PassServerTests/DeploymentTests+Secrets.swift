import Foundation
import PassServerFixtures
import Testing

extension DeploymentTests {
    @Test func onlyThePostgresServiceGetsTheDatabasePassword() async throws {
        let password = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let env = try Self.read(".env.example").split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line == "POSTGRES_PASSWORD=" ? "POSTGRES_PASSWORD=\(password)" : String(line)
        }.joined(separator: "\n")
        let directory = try Self.composeDirectory(env: env)
        defer { try? FileManager.default.removeItem(at: directory) }

        let result = try await Self.run(Self.requireDockerCompose(), ["-f", "docker-compose.yml", "config"], in: directory)
        try #require(result.status == 0, "docker-compose config failed: \(result.errorText)")
        let yamlToJSON = "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"
        let converted = try await Self.run("/usr/bin/python3", ["-c", yamlToJSON], in: directory, input: result.output)
        try #require(converted.status == 0, "YAML to JSON failed: \(converted.errorText)")
        let config = try #require(try JSONSerialization.jsonObject(with: converted.output) as? [String: Any])
        let services = try #require(config["services"] as? [String: Any])
        let postgres = try #require((services["postgres"] as? [String: Any])?["environment"] as? [String: Any])
        let server = try #require((services["pass-server"] as? [String: Any])?["environment"] as? [String: Any])

        #expect(postgres["POSTGRES_PASSWORD"] as? String == password)
        // The server reaches the database through DATABASE_URL, and the password is in no other variable.
        #expect(server["DATABASE_URL"] as? String == "postgres://passserver:\(password)@postgres:5432/passserver")
        let leaked = server.filter { $0.key != "DATABASE_URL" && ($0.value as? String)?.contains(password) == true }.map(\.key)
        #expect(leaked.isEmpty, "the password reaches pass-server as \(leaked)")
    }
}

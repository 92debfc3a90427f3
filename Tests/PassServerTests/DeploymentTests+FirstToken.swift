import Foundation
import PassServerTesting
import Testing

extension DeploymentTests {
    /// docs/deploying.md tells operators how to mint the first admin token in the compose
    /// deployment: the commands must name the compose service and, through the image's entrypoint
    /// (`pass-server`), run a `token create` the real binary accepts.
    @Test func theDocumentedFirstTokenCommandsWork() throws {
        let guide = try Self.read("docs/deploying.md")
        let compose = try Self.read("docker-compose.yml")
        #expect(compose.contains("\n  pass-server:\n"), "the compose service is named pass-server")
        #expect(try Self.read("Dockerfile").contains(#"ENTRYPOINT ["pass-server"]"#))

        let exec = "docker compose exec pass-server "
        let run = "docker compose run --rm pass-server "
        let lines = guide.split(separator: "\n").map(String.init)
        let execLine = try #require(lines.first { $0.hasPrefix(exec) }, "docs/deploying.md shows no `\(exec)…`")
        let runLine = try #require(lines.first { $0.hasPrefix(run) }, "docs/deploying.md shows no `\(run)…`")
        // `exec` bypasses the entrypoint, so it names the binary; `run` appends to the entrypoint.
        let execArguments = execLine.dropFirst(exec.count).split(separator: " ").map(String.init)
        #expect(execArguments.first == "pass-server")
        let runArguments = runLine.dropFirst(run.count).split(separator: " ").map(String.init)
        #expect(Array(execArguments.dropFirst()) == runArguments, "both run the same command")
        #expect(runArguments.starts(with: ["token", "create"]) && runArguments.contains("--role") && runArguments.contains("admin"))

        let directory = try TestCertificates.temporaryDirectory(prefix: "first-token")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The deployment's server has started (or `migrate` has run) by then: only those create a database.
        let environment = ["DATABASE_URL": "sqlite://\(directory)/db.sqlite"]
        #expect(try PassServerExecutable.run(["migrate"], environment: environment).status == 0)
        let minted = try PassServerExecutable.run(runArguments, environment: environment)
        #expect(minted.status == 0, "\(minted.standardError)")
        #expect(minted.standardOutput.hasPrefix("psa_"))
        #expect(minted.standardError.contains("role admin"))
    }
}

import Foundation
import HTTPServer
import PassServerFixtures
import PassServerTesting
import SystemSupport
import Testing

@testable import PassServer

/// Checks the files operators deploy with: `docker-compose.yml` (through the real `docker-compose`
/// 1.29 parser, no Docker engine needed), `.env.example`, the `Dockerfile`, `.dockerignore` and the
/// systemd unit. `make test` installs docker-compose; without it the compose tests fail, not skip.
@Suite("Deployment files", .offCooperativePool, .timeLimit(.minutes(3)))
struct DeploymentTests {
    /// The package root: this file lives at Tests/PassServerTests/DeploymentTests.swift.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let dockerCompose = "/usr/bin/docker-compose"
    /// Every configuration key operators may set (the README's configuration table).
    static let keys = [
        "HTTP_HOST", "HTTP_PORT", "PUBLIC_URL", "DATABASE_URL", "DATABASE_POOL_SIZE", "LOG_LEVEL",
        "PASS_CERTIFICATE", "PASS_PRIVATE_KEY", "PASS_PRIVATE_KEY_PASSWORD", "PASS_P12", "PASS_P12_PASSWORD",
        "WWDR_CERTIFICATE", "PASS_TYPE_IDENTIFIER", "TEAM_IDENTIFIER", "ORGANIZATION_NAME", "TOKEN_SECRET",
        "APNS_MODE", "APNS_URL", "APNS_CA_FILE", "APNS_CONNECTIONS", "APNS_EXPIRATION", "PUSH_MAX_RETRY_AGE",
        "POSTGRES_PASSWORD", "TRUSTED_PROXIES", "HTTP_MAX_CONNECTIONS_PER_CLIENT", "HTTP_REQUEST_TIMEOUT",
    ]

    @Test func composeAcceptsAnEnvironmentMadeFromTheExample() async throws {
        let password = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let secret = String(repeating: "ab", count: 32)
        let example = try Self.read(".env.example")
        let filled = example.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            switch line {
            case "POSTGRES_PASSWORD=": "POSTGRES_PASSWORD=\(password)"
            case "TOKEN_SECRET=": "TOKEN_SECRET=\(secret)"
            case "PUBLIC_URL=": "PUBLIC_URL=https://passes.example.test"
            case "ORGANIZATION_NAME=": "ORGANIZATION_NAME=Example Events"
            default: String(line)
            }
        }.joined(separator: "\n")
        let directory = try Self.composeDirectory(env: filled)
        defer { try? FileManager.default.removeItem(at: directory) }

        let result = try await Self.run(Self.requireDockerCompose(), ["-f", "docker-compose.yml", "config"], in: directory)
        #expect(result.status == 0, "docker-compose config failed: \(result.errorText)")
        let yamlToJSON = "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"
        let converted = try await Self.run("/usr/bin/python3", ["-c", yamlToJSON], in: directory, input: result.output)
        try #require(converted.status == 0, "YAML to JSON failed: \(converted.errorText)")
        let config = try #require(try JSONSerialization.jsonObject(with: converted.output) as? [String: Any])
        let services = try #require(config["services"] as? [String: Any])
        #expect(Set(services.keys) == ["postgres", "pass-server"])

        let server = try #require(services["pass-server"] as? [String: Any])
        let dependency = (server["depends_on"] as? [String: Any])?["postgres"] as? [String: Any]
        #expect(dependency?["condition"] as? String == "service_healthy")
        let mounts = server["volumes"] as? [String] ?? []
        let base = directory.resolvingSymlinksInPath().path
        #expect(mounts.contains("\(base)/Certificates:/app/Certificates:ro"), "mounts: \(mounts)")
        #expect(mounts.contains("\(base)/Passes:/app/Passes:ro"), "mounts: \(mounts)")
        let ports = server["ports"] as? [String] ?? []
        #expect(ports.count == 1 && ports.allSatisfy { $0.hasPrefix("127.0.0.1:8080:8080") }, "ports: \(ports)")
        #expect(server["restart"] as? String == "unless-stopped")
        #expect((server["build"] as? [String: Any])?["context"] as? String == base)
        let environment = try #require(server["environment"] as? [String: Any])
        #expect(environment["DATABASE_URL"] as? String == "postgres://passserver:\(password)@postgres:5432/passserver")
        #expect(environment["HTTP_HOST"] as? String == "0.0.0.0")
        // Proves env_file: .env reaches the container.
        #expect(environment["TOKEN_SECRET"] as? String == secret)
        // The proxy on the host connects through the pinned network's gateway: that subnet is trusted.
        let subnet = (((config["networks"] as? [String: Any])?["default"] as? [String: Any])?["ipam"] as? [String: Any])?["config"] as? [[String: Any]]
        #expect(subnet?.first?["subnet"] as? String == "172.30.80.0/24", "\(String(describing: config["networks"]))")
        #expect(subnet?.first?["gateway"] as? String == "172.30.80.1")
        let trusted = try #require(environment["TRUSTED_PROXIES"] as? String)
        let ranges = try Parse.addressRanges(trusted)
        let gateway = try #require(IPAddress("172.30.80.1"))
        #expect(ranges.contains { $0.contains(gateway) }, "TRUSTED_PROXIES=\(trusted) must contain the gateway")
        let outsider = try #require(IPAddress("203.0.113.9"))
        #expect(!ranges.contains { $0.contains(outsider) }, "no public address is trusted")
        #expect(environment["ORGANIZATION_NAME"] as? String == "Example Events")

        let postgres = try #require(services["postgres"] as? [String: Any])
        #expect(postgres["image"] as? String == "postgres:15")
        #expect((postgres["environment"] as? [String: Any])?["POSTGRES_PASSWORD"] as? String == password)
        let probe = ((postgres["healthcheck"] as? [String: Any])?["test"] as? [String])?.joined(separator: " ")
        #expect(probe?.contains("pg_isready") == true)
        #expect((postgres["volumes"] as? [String])?.contains { $0.hasPrefix("postgres-data:/var/lib/postgresql/data") } == true)
        #expect((config["volumes"] as? [String: Any])?.keys.contains("postgres-data") == true)
    }

    @Test func composeRefusesAnEmptyDatabasePassword() async throws {
        let directory = try Self.composeDirectory(env: try Self.read(".env.example"))
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.run(Self.requireDockerCompose(), ["-f", "docker-compose.yml", "config"], in: directory)
        #expect(result.status != 0)
        #expect(result.errorText.contains("POSTGRES_PASSWORD"), "stderr: \(result.errorText)")
    }

    @Test func envExampleAndGuideDocumentEveryKey() throws {
        let lines = try Self.read(".env.example").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let readme = try Self.read("README.md")
        let assignment = /^(# )?[A-Z0-9_]+=.*$/
        for key in Self.keys {
            let index = try #require(lines.firstIndex { $0.hasPrefix("\(key)=") || $0.hasPrefix("# \(key)=") }, "\(key) missing")
            // Walk up over neighbouring (alternative) keys to the comment that explains them.
            var above = index - 1
            while above >= 0, lines[above].wholeMatch(of: assignment) != nil { above -= 1 }
            #expect(above >= 0 && lines[above].hasPrefix("# ") && lines[above].count > 4, "\(key) has no comment")
            #expect(key == "POSTGRES_PASSWORD" || readme.contains("| `\(key)` |"), "\(key) missing from the README configuration table")
        }
    }

    @Test func dockerfileBuildsInTwoStagesAndRunsUnprivileged() throws {
        let instructions = try Self.dockerInstructions()
        var arguments: [String: String] = [:]
        for (keyword, value) in instructions.prefix(while: { $0.keyword != "FROM" }) where keyword == "ARG" {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { arguments[parts[0]] = parts[1] }
        }
        let stages = instructions.enumerated().filter { $0.element.keyword == "FROM" }
        try #require(stages.count == 2, "expected a build and a runtime stage")
        let images = stages.map { stage in
            arguments.reduce(stage.element.value) { $0.replacingOccurrences(of: "${\($1.key)}", with: $1.value) }
        }
        #expect(images[0].hasPrefix("swift:6.") && images[0].contains("bookworm") && images[0].hasSuffix(" AS build"))
        #expect(images[1].hasPrefix("debian:bookworm-slim"))

        let build = instructions[stages[0].offset..<stages[1].offset].filter { $0.keyword == "RUN" }.map(\.value)
        #expect(build.contains { $0.contains("swift build -c release --product pass-server --static-swift-stdlib") })
        let runtime = Array(instructions[stages[1].offset...])
        let installs = try Self.runtimePackages()
        for package in ["libmicrohttpd12", "libpq5", "libsqlite3-0", "libzip4", "zlib1g", "libssl3", "libnghttp2-14", "libcurl4", "ca-certificates", "curl"] {
            #expect(installs.contains(package), "runtime stage lacks \(package)")
        }
        #expect(!installs.contains { $0.hasSuffix("-dev") }, "no development packages at run time")
        #expect(runtime.contains { $0.keyword == "COPY" && $0.value.hasPrefix("--from=build") })

        func last(_ keyword: String) -> String? { runtime.last { $0.keyword == keyword }?.value }
        let user = try #require(last("USER"), "runtime stage sets no USER")
        let name = user.split(separator: ":").first.map(String.init) ?? ""
        #expect(!["root", "0", ""].contains(name), "runs as \(user)")
        #expect(last("HEALTHCHECK")?.contains("http://127.0.0.1:${HTTP_PORT:-8080}/healthz") == true)
        #expect(last("ENTRYPOINT") == #"["pass-server"]"#)
        #expect(last("CMD") == #"["serve"]"#)
        #expect(last("EXPOSE") == "8080")
        #expect(runtime.contains { $0.keyword == "ENV" && $0.value.contains("HTTP_HOST=0.0.0.0") })
    }

    /// The runtime stage must install the Debian package of every C library the server links;
    /// the Swift runtime itself is linked statically there (--static-swift-stdlib), so libraries
    /// that this debug build loads from the toolchain are left out.
    @Test func runtimeStageInstallsEveryLibraryTheServerLinks() async throws {
        let runner = try #require(Bundle.main.executableURL, "cannot locate the test runner")
        let binary = runner.deletingLastPathComponent().appendingPathComponent("pass-server")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build pass-server first: \(binary.path)")
        let directory = binary.deletingLastPathComponent()
        let dynamic = try await Self.run("/usr/bin/readelf", ["-d", binary.path], in: directory)
        try #require(dynamic.status == 0, "readelf failed: \(dynamic.errorText)")
        let needed = String(decoding: dynamic.output, as: UTF8.self).split(separator: "\n")
            .filter { $0.contains("(NEEDED)") }
            .compactMap { $0.split(separator: "[").last?.split(separator: "]").first.map(String.init) }
        let resolved = try await Self.run("/usr/bin/ldd", [binary.path], in: directory)
        let toolchain = String(decoding: resolved.output, as: UTF8.self).split(separator: "\n").filter { $0.contains("/swift/") }
        let system = needed.filter { library in !toolchain.contains { $0.contains("\(library) =>") } }
        #expect(system.contains("libpq.so.5") && system.contains("libmicrohttpd.so.12"))

        let owners = try await Self.run("/usr/bin/dpkg", ["-S"] + system.map { "*/\($0)" }, in: directory)
        let lines = String(decoding: owners.output, as: UTF8.self).split(separator: "\n")
        var installed = try Self.runtimePackages()
        installed.formUnion(["libc6", "libgcc-s1"])  // essential in every Debian image
        for library in system {
            let packages = lines.filter { $0.hasSuffix("/\(library)") }
                .compactMap { $0.split(separator: ":").first.map(String.init) }
            #expect(!packages.isEmpty, "no Debian package owns \(library)")
            #expect(packages.contains { installed.contains($0) }, "runtime stage lacks \(packages) for \(library)")
        }
    }

    @Test func dockerignoreKeepsBuildProductsAndSecretsOut() throws {
        let patterns = Set(try Self.read(".dockerignore").split(separator: "\n").map(String.init))
        for pattern in [".build", ".data", ".git", ".env", "Certificates/dev"] {
            #expect(patterns.contains(pattern) || patterns.contains("Certificates") && pattern.hasPrefix("Certificates"), "\(pattern) not ignored")
        }
    }

    @Test func systemdUnitServesUnprivilegedAndOutlastsTheDrain() throws {
        var service: [String: [String]] = [:]
        var section = ""
        for line in try Self.read("deploy/pass-server.service").split(separator: "\n").map(String.init) {
            if line.hasPrefix("[") { section = line; continue }
            guard section == "[Service]", !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            service[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        #expect(service["ExecStart"] == ["/usr/local/bin/pass-server serve"])
        #expect(service["User"] == ["passserver"])
        #expect(service["EnvironmentFile"] == ["/etc/pass-server/env"])
        #expect(service["WorkingDirectory"]?.first?.hasPrefix("/") == true)
        #expect(service["Restart"] == ["on-failure"])
        #expect(service["KillSignal"] == ["SIGTERM"])
        let stopSeconds = service["TimeoutStopSec"]?.first.flatMap { Int($0.replacingOccurrences(of: "s", with: "")) }
        #expect((stopSeconds ?? 0) > 30, "TimeoutStopSec must outlast the drain")
        #expect(service["NoNewPrivileges"] == ["yes"])
        #expect(service["ProtectSystem"] == ["strict"])
        #expect(service["ReadWritePaths"]?.first?.hasSuffix("/.data") == true)
        // The proxy on this host connects over loopback.
        let environment = service["Environment"] ?? []
        let trusted = environment.first(where: { $0.hasPrefix("TRUSTED_PROXIES=") }) ?? ""
        let ranges = try Parse.addressRanges(String(trusted.dropFirst("TRUSTED_PROXIES=".count)))
        let loopback = AddressRange.loopback
        #expect(ranges == loopback, "Environment: \(environment)")
    }

    @Test func proxyConfigsForwardTheAddressTheServerBelieves() throws {
        let nginx = try Self.read("deploy/nginx-pass-server.conf").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("#") }
        // nginx appends the peer it saw as the last entry, the one the server reads.
        #expect(nginx.contains("proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;"))
        #expect(!nginx.contains { $0.hasPrefix("real_ip_header") || $0.hasPrefix("set_real_ip_from") })
        #expect(nginx.contains { $0.hasPrefix("upstream") } && nginx.contains("server 127.0.0.1:8080;"), "the upstream is on loopback, which is trusted by default")
        #expect(nginx.contains { $0.hasPrefix("limit_conn pass_server_clients ") }, "connections per client are capped at the proxy")
        let caddy = try Self.read("deploy/Caddyfile").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("#") }
        #expect(caddy.contains { $0.hasPrefix("reverse_proxy 127.0.0.1:8080") })
        #expect(!caddy.contains { $0.contains("trusted_proxies") }, "Caddy then sets X-Forwarded-For to the client it sees")
    }
}

// MARK: - Support

extension DeploymentTests {
    /// What a finished child process left behind.
    struct ProcessResult {
        var status: Int32
        var output: Data
        var errorText: String
    }

    static func read(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static func requireDockerCompose(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            FileManager.default.isExecutableFile(atPath: dockerCompose),
            "\(dockerCompose) is missing: install Debian's docker-compose package (make test-deps)", sourceLocation: sourceLocation
        )
        return dockerCompose
    }

    /// A private copy of docker-compose.yml next to the given .env, as an operator's checkout has it.
    static func composeDirectory(env: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pass-server-deployment-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: root.appendingPathComponent("docker-compose.yml"),
            to: directory.appendingPathComponent("docker-compose.yml")
        )
        try Data(env.utf8).write(to: directory.appendingPathComponent(".env"))
        return directory
    }

    /// Runs a program to completion with a fixed, minimal environment (so no variable of the
    /// machine running the tests changes what Compose substitutes). Output goes through files,
    /// which cannot fill up and block the child the way an unread pipe can.
    static func run(_ executable: String, _ arguments: [String], in directory: URL, input: Data = Data()) async throws -> ProcessResult {
        let id = UUID().uuidString
        let files = ["in", "out", "err"].map { directory.appendingPathComponent(".run-\(id).\($0)") }
        defer { for file in files { try? FileManager.default.removeItem(at: file) } }
        try input.write(to: files[0])

        let process = try ChildProcess(
            executable, arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path, "LANG": "C.UTF-8"],
            directory: directory.path, standardInput: .file(files[0].path), standardOutput: .file(files[1].path),
            standardError: .file(files[2].path)
        )
        // Waited for on a thread of its own: the child may run for minutes.
        _ = try await onOwnThread { process.waitUntilExit() }
        return ProcessResult(
            status: process.terminationStatus,
            output: try Data(contentsOf: files[1]),
            errorText: String(decoding: try Data(contentsOf: files[2]), as: UTF8.self)
        )
    }

    /// The packages that the runtime (last) stage of the Dockerfile installs with apt-get.
    static func runtimePackages() throws -> Set<String> {
        let instructions = try dockerInstructions()
        let start = try #require(instructions.lastIndex { $0.keyword == "FROM" })
        let words = instructions[start...]
            .filter { $0.keyword == "RUN" && $0.value.contains("apt-get install") }
            .flatMap { $0.value.split(whereSeparator: \.isWhitespace).map(String.init) }
        return Set(words.filter { $0.hasPrefix("lib") || $0.hasPrefix("zlib") || ["ca-certificates", "tzdata", "curl"].contains($0) })
    }

    /// The Dockerfile as (instruction, arguments) pairs: comments dropped, continued lines joined.
    static func dockerInstructions() throws -> [(keyword: String, value: String)] {
        var instructions: [(keyword: String, value: String)] = []
        var pending = ""
        for rawLine in try read("Dockerfile").split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            let full = pending + line
            pending = ""
            let parts = full.split(separator: " ", maxSplits: 1).map(String.init)
            let value = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            instructions.append((keyword: parts[0].uppercased(), value: value))
        }
        return instructions
    }
}

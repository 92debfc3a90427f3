import FakeAPNs
import Foundation
import PassServerTesting
import SystemSupport
import Testing

/// `pass-server-bench` as bench/*.sh run it: the built executable, its help and exit codes, and a
/// push benchmark against a fake.
@Suite("pass-server-bench (the real executable)", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct BenchProgramTests {
    @Test("--help lists every driver and exits 0; an unknown command or option exits 64 with the usage")
    func help() throws {
        let help = try run(try Self.program(), ["--help"])
        #expect(help.status == 0, "\(help.error)")
        for command in ["storage", "bundles", "design-images", "tokens", "apns", "attendance", "google-fake", "webhook-seed", "webhook-receiver"] {
            #expect(help.output.contains("\n  \(command) "), "\(command) missing from \(help.output)")
        }
        let apnsHelp = try run(try Self.program(), ["apns", "--help"])
        #expect(apnsHelp.status == 0)
        #expect(apnsHelp.output.contains("Usage: pass-server-bench apns --url"))

        let unknown = try run(try Self.program(), ["frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("unknown command 'frobnicate'"))
        let badOption = try run(try Self.program(), ["apns", "--nope"])
        #expect(badOption.status == 64)
        #expect(badOption.error.contains("unknown option '--nope'") && badOption.error.contains("Usage: pass-server-bench apns"))
    }

    @Test("apns sends the pushes it is asked for to the fake and prints the rate", .timeLimit(.minutes(1)))
    func apnsAgainstFake() throws {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "bench-program"))
        let fake = try FakeAPNs(configuration: FakeAPNs.Configuration(
            certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey, clientCAPath: nil
        ))
        defer { fake.shutdown() }
        let result = try run(
            try Self.program(),
            ["apns", "--url", fake.url, "--ca-file", certificates.rootCertificate, "--count", "40", "--connections", "1", "--concurrency", "4"]
        )
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("pushes=40 failures=0 seconds="), "\(result.output)")
        // One warm-up push, then the forty measured.
        #expect(fake.pushes.count == 41)
    }

    @Test("design-images writes every classic image kind at three times its box; bundles builds designed passes with them", .timeLimit(.minutes(2)))
    func designedBundles() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "bench-design")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let written = try run(try Self.program(), ["design-images", "--dir", directory])
        #expect(written.status == 0, "\(written.error)")
        let boxes = ["icon": (29, 29), "logo": (160, 50), "strip": (375, 98), "background": (180, 220), "thumbnail": (90, 90)]
        for (kind, box) in boxes {
            let png = Array(try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(kind).png")))
            func word(_ offset: Int) -> Int { png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
            try #require(png.count > 24 && png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(kind).png is not a PNG")
            #expect((word(16), word(20)) == (box.0 * 3, box.1 * 3), "\(kind).png")
        }
        // The driver refuses a designed bundle without its images, so a rate means they were in.
        let passbook = FileManager.default.currentDirectoryPath + "/Passes"
        let designed = try run(try Self.program(), ["bundles", "--seconds", "0.3", "--look", "all-images", "--passes-dir", passbook])
        #expect(designed.status == 0, "\(designed.error)")
        // Bundles per second by the wall clock, then per CPU second of the building threads.
        let rates = designed.output.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(rates.count == 2 && rates.allSatisfy { $0 > 0 }, "\(designed.output)")
        let unknown = try run(try Self.program(), ["bundles", "--look", "poster"])
        #expect(unknown.status == 64 && unknown.error.contains("--look"), "\(unknown.error)")
    }

    /// The `pass-server-bench` binary next to the test bundle (`swift build --build-tests` builds it).
    @Test("attendance seeds an event on SQLite and prints the page's percentiles as a Markdown row", .timeLimit(.minutes(1)))
    func attendance() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "bench-attendance")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(
            try Self.program(), ["attendance", "--database-url", "sqlite://\(directory)/bench.db", "--tickets", "400", "--check-ins", "240", "--renders", "5"]
        )
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("| attendance page, 400 tickets, 240 check-ins | sqlite | 5 | "), "\(result.output)")
        #expect(result.output.contains(" ms | "))
    }

    @Test("google-fake writes the server's settings for it and its tally, and serves until stopped", .timeLimit(.minutes(1)))
    func googleFake() async throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "bench-google-fake")
        let process = try ChildProcess(try Self.program(), ["google-fake", "--dir", directory], standardOutput: .nullDevice)
        defer { process.signal(SIGTERM); _ = process.waitUntilExit() }
        let deadline = Date().addingTimeInterval(20)
        while FileManager.default.contents(atPath: directory + "/tally") == nil, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let tally = String(decoding: try #require(FileManager.default.contents(atPath: directory + "/tally"), "no tally within 20 s"), as: UTF8.self)
        #expect(tally == "0 0 0 0 0 0\n")
        let settings = String(decoding: try #require(FileManager.default.contents(atPath: directory + "/google.env")), as: UTF8.self)
        let api = try #require(settings.split(separator: "\n").first { $0.hasPrefix("GOOGLE_WALLET_API_URL=http://127.0.0.1:") })
        let keyFile = try #require(settings.split(separator: "\n").first { $0.hasPrefix("GOOGLE_WALLET_SERVICE_ACCOUNT_FILE=") })
        #expect(FileManager.default.fileExists(atPath: String(keyFile.dropFirst("GOOGLE_WALLET_SERVICE_ACCOUNT_FILE=".count))))
        // The fake answers: an unauthenticated call gets Google's 401.
        let port = try #require(Int(api.dropFirst("GOOGLE_WALLET_API_URL=http://127.0.0.1:".count).prefix { $0.isNumber }))
        #expect(try TestClient(port: port).request("GET", "/walletobjects/v1/eventTicketClass/x").status == 401)
    }

    @Test("webhook-seed queues a delivery per ticket imported with the endpoint; webhook-receiver counts what it is sent", .timeLimit(.minutes(1)))
    func webhooks() async throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "bench-webhooks")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try RestartablePort.free()
        let seed = try run(try Self.program(), [
            "webhook-seed", "--database-url", "sqlite://\(directory)/bench.db", "--token-secret", String(repeating: "ab", count: 32),
            "--url", "http://127.0.0.1:\(port)/hooks/bench", "--tickets", "30", "--baseline", "20", "--chunk", "10",
        ])
        #expect(seed.status == 0, "\(seed.error)")
        #expect(seed.output.contains(" deliveries=30 chunk=10 import_without_s="), "\(seed.output)")
        let secret = try #require(seed.output.split(separator: " ").first { $0.hasPrefix("secret=whsec_") })
        let process = try ChildProcess(
            try Self.program(), ["webhook-receiver", "--dir", directory, "--port", "\(port)", "--secret", String(secret.dropFirst(7))], standardOutput: .nullDevice
        )
        defer { process.signal(SIGTERM); _ = process.waitUntilExit() }
        let deadline = Date().addingTimeInterval(20)
        while FileManager.default.contents(atPath: directory + "/tally") == nil, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let answer = try TestClient(port: port).request(
            "POST", "/hooks/bench", headers: [("PassServer-Webhook-Id", "evt_1"), ("Content-Type", "application/json")], body: Array("{}".utf8)
        )
        #expect(answer.status == 200)
        try await Task.sleep(for: .milliseconds(200))
        let tally = String(decoding: try #require(FileManager.default.contents(atPath: directory + "/tally"), "no tally within 20 s"), as: UTF8.self)
        #expect(tally.hasPrefix("1 1 "), "\(tally)")
    }

    static func program() throws -> String {
        let runner = try #require(Bundle.main.executableURL, "cannot locate the test runner")
        let binary = runner.deletingLastPathComponent().appendingPathComponent("pass-server-bench").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build pass-server-bench first: \(binary)")
        return binary
    }
}

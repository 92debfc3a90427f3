import APNs
import FakeAPNs
import Foundation
import Logging
import PassServerTesting
import SystemSupport
import Testing

/// The fake as people run it: its log of received pushes, and the `fake-apns` program's help.
@Suite("fake-apns: push log and command line", .offCooperativePool, .timeLimit(.minutes(2)), .tags(.endToEnd))
struct FakeAPNsProgramTests {
    @Test("each push received is logged at info level, its token cut to 8 characters")
    func logsEachPush() async throws {
        let certificates = try APNsTestHarness.sharedCertificates()
        let sink = MemorySink()
        let fake = try FakeAPNs(
            configuration: FakeAPNs.Configuration(
                certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey,
                clientCAPath: certificates.rootCertificate
            ),
            logger: Logger(label: "fake-apns", level: .info, sink: sink)
        )
        defer { fake.shutdown() }
        fake.script(token: APNsTestHarness.token(2).rawValue, [.error(status: 400, reason: "BadDeviceToken")])
        let client = try APNSClient(configuration: APNsTestHarness.clientConfiguration(certificates, url: fake.url), logger: Logger(label: "t", level: .error))
        defer { client.shutdown() }
        for index in 1...2 {
            _ = try await client.send(APNSRequest(pushToken: APNsTestHarness.token(index), topic: APNsTestHarness.topic))
        }

        let lines = sink.lines.filter { $0.contains("push received") }
        #expect(lines.count == 2, "\(sink.lines)")
        for (index, status) in [(1, 200), (2, 400)] {
            let token = APNsTestHarness.token(index).rawValue
            let line = lines.first { $0.contains("apns.token=\(token.prefix(8))…") && $0.contains("status=\(status)") }
            #expect(line != nil, "no line for push \(index) in \(lines)")
            #expect(line?.contains("apns.topic=\(APNsTestHarness.topic)") == true)
            #expect(!sink.lines.contains { $0.contains(token) }, "a full token was logged")
            #expect(line.map { $0.hasPrefix("20") && $0.contains(" info fake-apns: ") } == true)
        }
    }

    @Test("fake-apns --help prints the usage and exits 0; a bad or unknown flag exits 64 with the usage")
    func help() throws {
        for flag in ["--help", "-h"] {
            let result = try Self.runProgram([flag])
            #expect(result.status == 0, "\(flag): \(result.error)")
            #expect(result.output.contains("Usage:"))
            #expect(result.output.contains("--cert server.pem --key server.key"))
            #expect(result.output.contains("--push-log FILE"))
            #expect(result.output.contains("--log-level"))
        }
        let bad = try Self.runProgram(["--cert"])
        #expect(bad.status == 64)
        #expect(bad.error.contains("--cert needs a value"))
        #expect(bad.error.contains("Usage:\n  fake-apns --cert server.pem"))
        let unknown = try Self.runProgram(["--cert", "a.pem", "--frobnicate", "1"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("unknown option '--frobnicate'"))
        #expect(unknown.error.contains("Usage:\n  fake-apns --cert server.pem"))
    }

    @Test("the program logs the pushes it serves on standard error", .timeLimit(.minutes(1)))
    func programLogsPushes() async throws {
        let certificates = try APNsTestHarness.sharedCertificates()
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("fake-apns-\(UUID().uuidString).log")
        let process = try ChildProcess(
            try Self.program().path,
            ["--cert", certificates.serverCertificate, "--key", certificates.serverKey, "--no-client-auth", "--print-port"],
            standardOutput: .pipe, standardError: .file(errorFile.path)
        )
        defer {
            // SIGKILL: the test is done with it, and nothing it would do on the way out is under test.
            process.signal(SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: errorFile)
        }
        // The first line is the port; the program flushes it at once.
        var portText = ""
        while !portText.contains("\n") {
            let chunk = try process.readOutput()
            try #require(!chunk.isEmpty, "fake-apns ended before printing its port")
            portText += String(decoding: chunk, as: UTF8.self)
        }
        let port = try #require(Int(portText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let client = try APNSClient(
            configuration: APNsTestHarness.clientConfiguration(certificates, url: "https://127.0.0.1:\(port)"),
            logger: Logger(label: "t", level: .error)
        )
        defer { client.shutdown() }
        let token = APNsTestHarness.token(41)
        let response = try await client.send(APNSRequest(pushToken: token, topic: APNsTestHarness.topic))
        #expect(response.status == 200)

        // The log line is written before the answer is sent, so it is there by now.
        let log = try String(contentsOf: errorFile, encoding: .utf8)
        let line = log.split(separator: "\n").first { $0.contains("push received") }
        #expect(line?.contains("apns.token=\(token.rawValue.prefix(8))…") == true, "\(log)")
        #expect(line?.contains("apns.topic=\(APNsTestHarness.topic)") == true && line?.contains("status=200") == true, "\(log)")
        #expect(!log.contains(token.rawValue))
    }

    /// Runs `fake-apns` with `arguments` and waits for it.
    static func runProgram(_ arguments: [String]) throws -> CommandResult {
        try run(try program().path, arguments)
    }

    /// The `fake-apns` binary next to the test bundle (`swift build` builds it with the tests).
    static func program() throws -> URL {
        let runner = try #require(Bundle.main.executableURL, "cannot locate the test runner")
        let binary = runner.deletingLastPathComponent().appendingPathComponent("fake-apns")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build fake-apns first: \(binary.path)")
        return binary
    }
}

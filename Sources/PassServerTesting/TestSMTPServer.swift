public import Foundation
import Glibc
import SystemSupport
public import Testing

/// A real SMTP server for tests: `scripts/test-smtp-server.py` (aiosmtpd, Debian
/// `python3-aiosmtpd`) on a free loopback port, as a child process of the test. It captures every
/// message it accepts and every refusal it answers into a spool directory, which `events()` reads;
/// `Behaviour` scripts refusals (550), temporary failures (451 n times, then accepted), STARTTLS or
/// TLS from the first byte with the test CA's server certificate, and AUTH.
public final class TestSMTPServer: Sendable {
    /// What the server does besides accepting every message.
    public struct Behaviour: Sendable {
        /// Recipients answered `550 5.1.1 … User unknown` at RCPT TO.
        public var refuse: [String] = []
        /// Recipients whose first n RCPT TO are answered `451 4.7.1 … Greylisted`.
        public var tempfail: [String: Int] = [:]
        /// The first n messages are answered `451` after their content.
        public var tempfailData = 0
        /// Offer STARTTLS (or, with `implicitTLS`, speak TLS from the first byte) with the test
        /// CA's certificate for 127.0.0.1.
        public var tls = false
        public var implicitTLS = false
        /// Refuse MAIL FROM before STARTTLS (530).
        public var requireTLS = false
        /// Require AUTH with this user and password.
        public var auth: (user: String, password: String)?
        /// With `auth`: the first n AUTH attempts fail (535) even with the right credentials, as
        /// when the account is locked and then unlocked.
        public var authFailures = 0
        /// Seconds the server waits before answering each message's content.
        public var delay: Double = 0

        public init(
            refuse: [String] = [], tempfail: [String: Int] = [:], tempfailData: Int = 0, tls: Bool = false, implicitTLS: Bool = false,
            requireTLS: Bool = false, auth: (user: String, password: String)? = nil, authFailures: Int = 0, delay: Double = 0
        ) {
            self.refuse = refuse
            self.tempfail = tempfail
            self.tempfailData = tempfailData
            self.tls = tls
            self.implicitTLS = implicitTLS
            self.requireTLS = requireTLS
            self.auth = auth
            self.authFailures = authFailures
            self.delay = delay
        }
    }

    public let port: Int
    public let spool: String
    /// The CA certificate (PEM) that issued the server's certificate, when TLS is on.
    public let caFile: String?
    private let process: ChildProcess
    private let errorPath: String

    /// The script, found from this file's place in the package.
    static let scriptPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/test-smtp-server.py").path

    /// Starts the server in a directory of its own under `directory` and waits (up to 60 s, a
    /// loaded machine starts Python slowly) until it listens.
    /// `port` 0 picks a free port; a server restarted on its predecessor's port
    /// (`RestartablePort.free()`) lets a test stop the SMTP server and bring it back.
    public init(_ behaviour: Behaviour = Behaviour(), certificates: TestCertificates? = nil, in directory: String, port: Int = 0) throws {
        let root = directory + "/smtp-" + UUID().uuidString.prefix(8)
        spool = root + "/spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        var config: [String: Any] = [
            "refuse": behaviour.refuse, "tempfail": behaviour.tempfail, "tempfailData": behaviour.tempfailData,
            "implicitTLS": behaviour.implicitTLS, "requireTLS": behaviour.requireTLS, "delay": behaviour.delay,
            "authFailures": behaviour.authFailures,
        ]
        if behaviour.tls || behaviour.implicitTLS {
            guard let certificates else { throw TestSMTPServerError(description: "TLS needs the test certificates") }
            config["tls"] = ["certificate": certificates.serverCertificate, "key": certificates.serverKey]
            caFile = certificates.rootCertificate
        } else {
            caFile = nil
        }
        if let auth = behaviour.auth { config["auth"] = ["user": auth.user, "password": auth.password] }
        let configPath = root + "/config.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))
        let outputPath = root + "/server.out"
        errorPath = root + "/server.err"
        process = try ChildProcess(
            "/usr/bin/python3", [Self.scriptPath, "--spool", spool, "--config", configPath, "--port", "\(port)"],
            standardOutput: .file(outputPath), standardError: .file(errorPath)
        )
        let deadline = Date().addingTimeInterval(60)
        var listening: Int?
        while listening == nil, process.isRunning, Date() < deadline {
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            listening = output.split(separator: "\n").first { $0.hasPrefix("PORT ") }.flatMap { Int($0.dropFirst(5)) }
            if listening == nil { usleep(20_000) }
        }
        guard let listening else {
            if process.isRunning { process.signal(SIGKILL) }
            let error = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw TestSMTPServerError(description: "the test SMTP server did not start: \(error.suffix(2_000))")
        }
        self.port = listening
    }

    deinit { stop() }

    /// `smtp://127.0.0.1:port` (`smtps://` with implicit TLS), optionally with credentials.
    public func url(scheme: String = "smtp", user: String? = nil, password: String? = nil) -> String {
        let credentials = user.map { user in
            let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }
            return encode(user) + (password.map { ":" + encode($0) } ?? "") + "@"
        } ?? ""
        return "\(scheme)://\(credentials)127.0.0.1:\(port)"
    }

    /// Stops the server (SIGTERM, then SIGKILL if it lingers) and waits for it.
    public func stop() {
        guard process.isRunning else { return }
        process.signal(SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { process.signal(SIGKILL) }
        _ = process.waitUntilExit()
    }

    /// What the server wrote to standard error (Python's complaints, if any).
    public var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// How many events are written so far, without reading them; a file still being written (it
    /// has a temporary name until it is complete) does not count.
    public func eventCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).count { $0.hasSuffix(".json") }
    }

    /// Every event so far, in the order they happened.
    public func events() throws -> [SMTPEvent] {
        let names = try FileManager.default.contentsOfDirectory(atPath: spool).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            let data = try Data(contentsOf: URL(fileURLWithPath: spool + "/" + name))
            return try JSONDecoder().decode(SMTPEvent.self, from: data)
        }
    }

    /// The messages accepted so far.
    public func messages() throws -> [SMTPEvent] {
        try events().filter { $0.kind == "message" }
    }

    /// Waits (polling, at most `timeout` seconds) until `condition` holds for the events; returns
    /// them as last read. On a timeout, records an issue at the caller's `sourceLocation` (the
    /// events are still returned, for the caller's own checks to describe).
    @discardableResult
    public func waitForEvents(
        timeout: TimeInterval, sourceLocation: SourceLocation = #_sourceLocation, _ condition: ([SMTPEvent]) -> Bool
    ) async throws -> [SMTPEvent] {
        let deadline = Date().addingTimeInterval(timeout)
        var events = try self.events()
        while !condition(events), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            events = try self.events()
        }
        if !condition(events) {
            Issue.record(
                "timed out after \(Int(timeout)) s waiting for the SMTP server's events; it has \(events.map(\.kind))",
                sourceLocation: sourceLocation
            )
        }
        return events
    }

    /// Waits until at least `count` messages were accepted (at most `timeout` seconds; an issue at
    /// `sourceLocation` if they were not).
    public func waitForMessages(_ count: Int, timeout: TimeInterval, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [SMTPEvent] {
        try await waitForEvents(timeout: timeout, sourceLocation: sourceLocation) { events in
            events.count { $0.kind == "message" } >= count
        }.filter { $0.kind == "message" }
    }
}

public struct TestSMTPServerError: Error, CustomStringConvertible {
    public let description: String
}

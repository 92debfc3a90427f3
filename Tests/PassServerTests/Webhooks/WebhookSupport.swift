import ByteEncoding
import Certificates
import Foundation
import PassServerFixtures
import PassServerTesting
import SystemSupport
import Testing

@testable import PassServer

/// What the webhook suites share: the settings of a server that sends to a local receiver quickly,
/// endpoints registered through the admin API, and a verifier of signatures written from
/// docs/webhooks.md ("Verifying a delivery") alone, as a receiver would write it.
enum WebhookTest {
    /// Private targets allowed (the receiver is on 127.0.0.1); retries after fractions of a
    /// second; a 1 s timeout; the outbox polled often.
    static func configure(_ configuration: inout Configuration) {
        configuration.webhooks.allowPrivateTargets = true
        configuration.webhooks.pollInterval = 0.05
        configuration.webhooks.timeout = 1
        configuration.webhooks.retryBaseDelay = 0.2
        configuration.webhooks.retryMaxDelay = 5
        configuration.webhooks.restAfterUnreachable = 0.3
    }

    /// The endpoint as created: its id, its secret (shown once) and the whole answer.
    struct Registered {
        var id: String
        var secret: String
        var body: [String: Any]
    }

    /// Registers an endpoint through the admin API.
    static func register(
        _ app: TestApp, url: String, types: [String], description: String = "test receiver", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Registered {
        let list = types.map { "\"\($0)\"" }.joined(separator: ",")
        let response = try app.admin("POST", "/admin/v1/webhooks", json: #"{"url":"\#(url)","eventTypes":[\#(list)],"description":"\#(description)"}"#)
        try #require(response.status == 201, "endpoint not created: \(response.status) \(response.text)", sourceLocation: sourceLocation)
        let body = try #require(response.jsonObject, sourceLocation: sourceLocation)
        return Registered(
            id: try #require(body["id"] as? String, sourceLocation: sourceLocation), secret: try #require(body["secret"] as? String, sourceLocation: sourceLocation),
            body: body
        )
    }

    /// Waits until `receiver` holds deliveries to `name` that satisfy `done`; returns them.
    @discardableResult
    static func waitFor(
        _ receiver: FakeWebhookReceiver, _ name: String, _ what: String, timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation,
        _ done: ([FakeWebhookReceiver.Delivery]) -> Bool
    ) async throws -> [FakeWebhookReceiver.Delivery] {
        try await eventually("\(what) (\(receiver.deliveries(name).count) deliveries to \(name) so far)", timeout: timeout, sourceLocation: sourceLocation) {
            done(receiver.deliveries(name))
        }
        return receiver.deliveries(name)
    }

    /// Whether `header` signs `body` with `secret`, as docs/webhooks.md says to check it: split the
    /// header's comma-separated `key=value` items, take `t` and every `v1`; refuse a `t` more than
    /// five minutes from now; compute HMAC-SHA256 with the secret's UTF-8 bytes as the key over
    /// `t`, a full stop and the raw body; accept when it equals (hex) one of the `v1` values.
    static func verifies(body: [UInt8], header: String?, secret: String, now: Date = Date()) -> Bool {
        guard let header else { return false }
        var timestamp: Int64?
        var signatures: [String] = []
        for item in header.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, abs(now.timeIntervalSince1970 - Double(timestamp)) <= 300 else { return false }
        guard let mac = try? Digest.sha256().authenticationCode(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body) else { return false }
        let expected = Array(Hex.encode(mac).utf8)
        return signatures.contains { ConstantTime.equal(Array($0.utf8), expected) }
    }

    static func verifies(_ delivery: FakeWebhookReceiver.Delivery, secret: String, now: Date = Date()) -> Bool {
        verifies(body: delivery.body, header: delivery.signature, secret: secret, now: now)
    }
}

extension WebhookTest {
    /// Runs the Python verifier printed in docs/webhooks.md, as it is there, on `delivery` with
    /// each of `secrets`; its verdicts, in order.
    static func documentedVerifier(_ delivery: FakeWebhookReceiver.Delivery, secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [Bool] {
        let docs = try String(contentsOf: PassServerExecutable.packageRoot.appendingPathComponent("docs/webhooks.md"), encoding: .utf8)
        let start = try #require(docs.range(of: "```python\n"), "docs/webhooks.md has a Python verifier", sourceLocation: sourceLocation)
        let end = try #require(docs.range(of: "```", range: start.upperBound..<docs.endIndex), sourceLocation: sourceLocation)
        let script = String(docs[start.upperBound..<end.lowerBound]) + """

            import json, sys
            request = json.load(open(sys.argv[1]))
            print(json.dumps([verify(secret, request["header"], bytes.fromhex(request["body"])) for secret in request["secrets"]]))
            """
        let directory = try TestCertificates.temporaryDirectory(prefix: "webhook-verifier")
        let request = try JSONSerialization.data(withJSONObject: ["header": delivery.signature ?? "", "body": Hex.encode(delivery.body), "secrets": secrets])
        try request.write(to: URL(fileURLWithPath: directory + "/request.json"))
        let process = try ChildProcess("/usr/bin/python3", ["-c", script, directory + "/request.json"], standardOutput: .pipe, standardError: .pipe)
        let (output, errors) = try process.readToEnd()
        try #require(process.terminationStatus == 0, "the documented verifier failed: \(String(decoding: errors, as: UTF8.self))", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(output)) as? [Bool], sourceLocation: sourceLocation)
    }
}

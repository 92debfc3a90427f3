import APNs
import Foundation
import Logging
import PassIdentifiers
import PassServerTesting
import Synchronization
import Testing

@testable import PassServer

/// The relay sender without sockets: how pushes become relay requests, and how the relay's answers
/// read in the push reply table.
@Suite("Push relay sender", .offCooperativePool, .timeLimit(.minutes(1)))
struct RelayPushSenderTests {
    /// Records each request and answers from a script.
    /// The outcomes a send reported, by index.
    final class Outcomes: Sendable {
        let byIndex = Mutex<[Int: PushPolicy.Outcome]>([:])
    }

    final class RecordingTransport: RelayTransport {
        let requests = Mutex<[(headers: [(String, String)], body: String)]>([])
        let answers: [RelayTransportResult]

        init(answers: [RelayTransportResult]) {
            self.answers = answers
        }

        func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) -> RelayTransportResult {
            requests.withLock { requests in
                requests.append((headers, String(decoding: body, as: UTF8.self)))
                return requests.count <= answers.count ? answers[requests.count - 1] : .answered(status: 200, body: [])
            }
        }
    }

    static func push(_ token: String, _ topic: String) -> APNSRequest {
        APNSRequest(pushToken: PushToken(trusted: token), topic: PassTypeIdentifier(trusted: topic))
    }

    @Test("tokens of one pass type share a request, at most maxTokensPerRequest each; every push is answered once")
    func batching() {
        let transport = RecordingTransport(answers: [.answered(status: 200, body: []), .answered(status: 503, body: Array("busy".utf8))])
        var sender = RelayPushSender(url: "http://127.0.0.1:9/push", key: "k1", transport: transport, logger: Logger(label: "test", sink: MemorySink()))
        sender.maxTokensPerRequest = 2
        let requests = [Self.push("token-a-00000000", "pass.a"), Self.push("token-b-00000000", "pass.b"), Self.push("token-c-00000000", "pass.a"),
                        Self.push("token-d-00000000", "pass.a")]
        let answers = Outcomes()
        sender.send(requests) { index, delivery in
            answers.byIndex.withLock { answers in
                #expect(answers[index] == nil, "answered twice: \(index)")
                answers[index] = delivery.outcome
            }
        }
        let sent = transport.requests.withLock { $0 }
        #expect(sent.map(\.body) == [
            #"{"passTypeIdentifier":"pass.a","pushTokens":["token-a-00000000","token-c-00000000"]}"#,
            #"{"passTypeIdentifier":"pass.a","pushTokens":["token-d-00000000"]}"#,
            #"{"passTypeIdentifier":"pass.b","pushTokens":["token-b-00000000"]}"#,
        ])
        #expect(sent.allSatisfy { request in request.headers.contains { $0 == ("Authorization", "k1") } })
        let outcomes = answers.byIndex.withLock { $0 }
        #expect(outcomes.count == 4)
        #expect(outcomes[0] == .answered(status: 200, reason: nil, timestamp: nil))
        #expect(outcomes[2] == .answered(status: 200, reason: nil, timestamp: nil))
        #expect(outcomes[3] == .answered(status: 503, reason: .unknown("relay answered HTTP 503: busy"), timestamp: nil))
        #expect(outcomes[1] == .answered(status: 200, reason: nil, timestamp: nil))
    }

    @Test("without a key no Authorization header is sent")
    func noKey() {
        let transport = RecordingTransport(answers: [])
        let sender = RelayPushSender(url: "http://127.0.0.1:9/push", key: nil, transport: transport, logger: Logger(label: "test", sink: MemorySink()))
        sender.send([Self.push("token-a-00000000", "pass.a")]) { _, _ in }
        let sent = transport.requests.withLock { $0 }
        #expect(sent.count == 1)
        #expect(!(sent.first?.headers.contains { $0.0 == "Authorization" } ?? true))
    }

    @Test("relay answers in the reply table: delivered, retried, halted, failed; never pruned")
    func replyTable() {
        let policy = PushPolicy(maxRetryAge: 3_600)
        let now = Date()
        func action(_ result: RelayTransportResult) -> PushPolicy.Action {
            policy.action(for: RelayPushSender.outcome(result), attempts: 1, enqueuedAt: now, now: now, random: 0.5)
        }
        #expect(action(.answered(status: 200, body: [])) == .delivered)
        #expect(action(.answered(status: 204, body: [])) == .delivered)
        for status in [429, 500, 502, 503] {
            guard case .retry = action(.answered(status: status, body: [])) else { Issue.record("\(status) not retried"); continue }
        }
        guard case .retry = action(.failed("connection dropped")) else { Issue.record("dropped connection not retried"); return }
        guard case .retry = action(.unreachable("refused")) else { Issue.record("refused connection not retried"); return }
        guard case .halt(403, _) = action(.answered(status: 401, body: [])) else { Issue.record("401 does not halt"); return }
        guard case .halt(403, _) = action(.answered(status: 403, body: [])) else { Issue.record("403 does not halt"); return }
        for status in [400, 404, 410, 413] {
            guard case .fail(.rejected(_, let reason)) = action(.answered(status: status, body: Array("no\u{1}pe".utf8))) else {
                Issue.record("\(status) not failed")
                continue
            }
            #expect(reason?.rawValue == "relay answered HTTP \(status): no?pe")
        }
    }
}

import APNs
import ByteEncoding
import Foundation
import Logging
import PassIdentifiers

/// Pushes to Android wallet apps that speak Apple's protocol (WalletPasses), through their relay:
/// `POST <ANDROID_PASS_PUSH_URL>` with `{"passTypeIdentifier": …, "pushTokens": […]}` and the API
/// key, when there is one, as the `Authorization` header (walletpasses.io/developer).
///
/// The tokens of one pass type go in one request, at most `maxTokensPerRequest` at a time; the
/// relay's answer stands for every token of the request. Answers become the outcomes of the push
/// reply table (`PushPolicy`): 2xx delivered; 429 and 5xx retried with backoff; no answer
/// (connection refused or lost, timeout) retried; 401 and 403 (our key refused) halt the relay's
/// dispatcher; any other 4xx fails the rows with the relay's status and words as the reason. No
/// relay answer prunes a registration: the relay's answers are about requests, not tokens.
///
/// Sends on the calling thread (the relay dispatcher's), one request after another.
struct RelayPushSender: OutboxSender {
    let url: String
    let key: String?
    let transport: any RelayTransport
    let logger: Logger
    var timeout: Duration = .seconds(30)
    /// Tokens per request (WalletUnion documents 50 for its Firebase tokens; WalletPasses names no
    /// limit, so the same bound is kept).
    var maxTokensPerRequest = 50

    func send(_ requests: [APNSRequest], answered: @escaping @Sendable (_ index: Int, _ delivery: PushDelivery) -> Void) {
        for chunk in Self.requests(requests, maxTokens: maxTokensPerRequest) {
            var headers = [("Content-Type", "application/json"), ("Accept", "application/json")]
            if let key { headers.append(("Authorization", key)) }
            let result = transport.post(url: url, headers: headers, body: chunk.body, timeout: timeout)
            let outcome = Self.outcome(result)
            if case .answered(let status, _, _) = outcome, status != 200 {
                logger.warning("push relay refused a request", ["relay.answer": "\(result)", "tokens": "\(chunk.indices.count)"])
            }
            for index in chunk.indices {
                answered(index, PushDelivery(outcome: outcome))
            }
        }
    }

    func shutdown() {}

    /// One relay request: the indices of the pushes it carries and its JSON body.
    struct Chunk: Equatable {
        var indices: [Int]
        var body: [UInt8]
    }

    /// The pushes grouped by pass type (in order of first appearance), at most `maxTokens` each.
    static func requests(_ requests: [APNSRequest], maxTokens: Int) -> [Chunk] {
        var order: [PassTypeIdentifier] = []
        var byTopic: [PassTypeIdentifier: [Int]] = [:]
        for (index, request) in requests.enumerated() {
            if byTopic[request.topic] == nil { order.append(request.topic) }
            byTopic[request.topic, default: []].append(index)
        }
        var chunks: [Chunk] = []
        for topic in order {
            let indices = byTopic[topic] ?? []
            for start in stride(from: 0, to: indices.count, by: max(maxTokens, 1)) {
                let part = Array(indices[start..<min(start + max(maxTokens, 1), indices.count)])
                var body = Array(#"{"passTypeIdentifier":"#.utf8)
                JSONString.append(topic.rawValue, to: &body)
                body.append(contentsOf: #","pushTokens":["#.utf8)
                for (position, index) in part.enumerated() {
                    if position > 0 { body.append(UInt8(ascii: ",")) }
                    JSONString.append(requests[index].pushToken.rawValue, to: &body)
                }
                body.append(contentsOf: "]}".utf8)
                chunks.append(Chunk(indices: part, body: body))
            }
        }
        return chunks
    }

    /// The reply table's reading of one relay answer.
    static func outcome(_ result: RelayTransportResult) -> PushPolicy.Outcome {
        switch result {
        case .unreachable(let message):
            return .unreachable("push relay: \(message)")
        case .failed(let message):
            return .transportFailure("push relay: \(message)")
        case .answered(let status, _) where (200..<300).contains(status):
            return .answered(status: 200, reason: nil, timestamp: nil)
        case .answered(let status, let body):
            let reason = APNSReason.unknown(Self.reason(status: status, body: body))
            switch status {
            case 401, 403: return .answered(status: 403, reason: reason, timestamp: nil)
            case 429, 500...: return .answered(status: status, reason: reason, timestamp: nil)
            // Never 410 (which the table reads as a dead token): the answer is about the request.
            case 410: return .answered(status: 400, reason: reason, timestamp: nil)
            default: return .answered(status: status, reason: reason, timestamp: nil)
            }
        }
    }

    /// `relay answered HTTP <status>: <the start of its body>`, printable ASCII only.
    static func reason(status: Int, body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(200).map { IdentifierBytes.isVisibleASCII($0) || $0 == 0x20 ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
        return "relay answered HTTP \(status)" + (text.isEmpty ? "" : ": \(text)")
    }
}

/// What one relay request produced.
enum RelayTransportResult: Sendable, Equatable, CustomStringConvertible {
    /// An HTTP answer: its status and body.
    case answered(status: Int, body: [UInt8])
    /// No connection: DNS, TCP connect or TLS handshake failed.
    case unreachable(String)
    /// Connected, but no answer: connection lost, timeout.
    case failed(String)

    var description: String {
        switch self {
        case .answered(let status, let body): RelayPushSender.reason(status: status, body: body)
        case .unreachable(let message): "unreachable: \(message)"
        case .failed(let message): "no answer: \(message)"
        }
    }
}

/// One HTTPS POST and its answer, blocking the caller until then (at most `timeout`).
protocol RelayTransport: Sendable {
    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) -> RelayTransportResult
}

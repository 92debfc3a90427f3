import ByteEncoding
import Certificates
public import Foundation
import HTTPServer
import Logging
import Synchronization

/// A webhook receiver that keeps only counts, for benchmarks: an HTTP server on 127.0.0.1 that
/// answers every `POST /hooks/{name}` 200 at once and counts the deliveries, the distinct
/// `PassServer-Webhook-Id`s and when the first and the last arrived. With a secret it also checks
/// the signature of every `verifyEvery`-th delivery (docs/webhooks.md) and counts the bad ones.
/// Cheap by design, so that it is never what limits a sender.
public final class CountingWebhookReceiver: Sendable {
    /// What arrived so far.
    public struct Tally: Sendable {
        public var deliveries = 0
        public var distinctIDs = 0
        public var first: Date?
        public var last: Date?
        public var checkedSignatures = 0
        public var badSignatures = 0
    }

    private struct State {
        var tally = Tally()
        var ids = Set<String>()
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let server: HTTPServer

    public init(port: Int = 0, threads: Int = 4, secret: String? = nil, verifyEvery: Int = 100) throws {
        var router = Router()
        let shared = self.shared
        let key = secret.map { Array($0.utf8) }
        router.post("/hooks/:name", maxBodySize: 1 << 20) { request in
            let id = request.headers["PassServer-Webhook-Id"] ?? ""
            let now = Date()
            let check = shared.state.withLock { state -> Bool in
                state.tally.deliveries += 1
                if state.ids.insert(id).inserted { state.tally.distinctIDs += 1 }
                if state.tally.first == nil { state.tally.first = now }
                state.tally.last = now
                return key != nil && state.tally.deliveries % max(1, verifyEvery) == 0
            }
            if check, let key {
                let good = Self.verifies(body: request.body, header: request.headers["PassServer-Signature"], key: key)
                shared.state.withLock { state in
                    state.tally.checkedSignatures += 1
                    if !good { state.tally.badSignatures += 1 }
                }
            }
            return Response(status: 200, headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
        }
        server = try HTTPServer.webhookReceiver(router: router, port: port, threads: threads, label: "webhook-receiver")
    }

    public var port: Int { server.port }

    /// `http://127.0.0.1:<port>/hooks/<name>`.
    public func url(_ name: String) -> String { "http://127.0.0.1:\(server.port)/hooks/\(name)" }

    public var tally: Tally { shared.state.withLock { $0.tally } }

    public func shutdown() {
        server.shutdown()
        server.waitUntilStopped()
    }

    /// `t=…,v1=…` over the body with the key, as docs/webhooks.md says to check it (the time is
    /// not compared with the clock here: a benchmark checks the HMAC).
    private static func verifies(body: [UInt8], header: String?, key: [UInt8]) -> Bool {
        guard let header else { return false }
        let items = header.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        guard let time = items.first(where: { $0.count == 2 && $0[0] == "t" })?[1],
            let mac = try? Digest.sha256().authenticationCode(key: key, message: Array("\(time).".utf8) + body)
        else { return false }
        let expected = Array(Hex.encode(mac).utf8)
        return items.contains { $0.count == 2 && $0[0] == "v1" && ConstantTime.equal(Array($0[1].utf8), expected) }
    }
}

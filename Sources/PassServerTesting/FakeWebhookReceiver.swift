public import Foundation
import HTTPServer
import Logging
import Synchronization

/// A stand-in for an organizer's webhook receiver: an HTTP server on 127.0.0.1 with a free port
/// that takes `POST /hooks/{name}` (one name per endpoint under test), records every delivery
/// (its headers, body and when it arrived) and answers 200 `{}`, or what the test scripted for
/// that name's next deliveries: another status, an answer only after a delay (longer than the
/// sender's timeout: a timeout), or a connection closed without an answer.
///
/// Its threads are many (a delayed answer holds one), and it accepts as many connections from one
/// client as a sender opens.
public final class FakeWebhookReceiver: Sendable {
    /// One delivery received.
    public struct Delivery: Sendable {
        /// The endpoint name in the path.
        public var name: String
        /// Header fields with lowercased names.
        public var headers: [String: String]
        public var body: [UInt8]
        public var receivedAt: Date
        /// What it was answered: a status, or 0 when the connection was closed without one.
        public var answer: Int

        /// `PassServer-Webhook-Id`.
        public var webhookID: String? { headers["passserver-webhook-id"] }
        public var type: String? { headers["passserver-webhook-type"] }
        public var signature: String? { headers["passserver-signature"] }
        /// The body as a JSON object.
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    /// A scripted answer for one delivery.
    public enum Answer: Sendable, Equatable {
        case status(Int)
        /// Waits this many seconds, then answers with the status (the sender has usually given up).
        case delayed(seconds: Double, status: Int)
        /// Closes the connection before the body of the answer is complete.
        case drop
    }

    private struct State {
        var deliveries: [Delivery] = []
        var scripts: [String: [Answer]] = [:]
        var always: [String: Answer] = [:]
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let server: HTTPServer

    public init(threads: Int = 16) throws {
        var router = Router()
        let shared = self.shared
        router.post("/hooks/:name", maxBodySize: 1 << 20) { request in
            let name = request.parameters["name"] ?? ""
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.lowercased()] = field.value }
            let answer = shared.state.withLock { state -> Answer in
                if var script = state.scripts[name], !script.isEmpty {
                    let next = script.removeFirst()
                    state.scripts[name] = script
                    return next
                }
                return state.always[name] ?? .status(200)
            }
            let code: Int = switch answer {
            case .status(let status), .delayed(_, let status): status
            case .drop: 0
            }
            shared.state.withLock {
                $0.deliveries.append(Delivery(name: name, headers: headers, body: request.body, receivedAt: Date(), answer: code))
            }
            switch answer {
            case .status(let status):
                return Response(status: status, headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
            case .delayed(let seconds, let status):
                Thread.sleep(forTimeInterval: seconds)
                return Response(status: status, headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
            case .drop:
                struct Dropped: Error {}
                return .streamed(headers: ["Content-Type": "application/json"], BodyStream { throw Dropped() })
            }
        }
        server = try HTTPServer.webhookReceiver(router: router, port: 0, threads: threads, label: "fake-webhooks")
    }

    public var port: Int { server.port }

    /// `http://127.0.0.1:<port>/hooks/<name>`: the URL of one endpoint under test.
    public func url(_ name: String) -> String { "http://127.0.0.1:\(server.port)/hooks/\(name)" }

    /// Every delivery received so far, in order of arrival.
    public var deliveries: [Delivery] { shared.state.withLock { $0.deliveries } }

    /// The deliveries of one endpoint name.
    public func deliveries(_ name: String) -> [Delivery] { deliveries.filter { $0.name == name } }

    /// The next deliveries to `name` get these answers, in order; later ones `always` (200 by default).
    public func script(_ name: String, _ answers: [Answer]) {
        shared.state.withLock { $0.scripts[name, default: []].append(contentsOf: answers) }
    }

    /// Every delivery to `name` not scripted otherwise gets `answer`.
    public func always(_ name: String, _ answer: Answer) {
        shared.state.withLock { $0.always[name] = answer }
    }

    public func shutdown() {
        server.shutdown()
        server.waitUntilStopped()
    }
}

extension HTTPServer {
    /// A started server for a webhook receiver under test: on 127.0.0.1, taking as many connections
    /// from one client as a sender opens, quick to stop, logging nothing.
    static func webhookReceiver(router: Router, port: Int, threads: Int, label: String) throws -> HTTPServer {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.threads = threads
        configuration.maxConnectionsPerClient = 10_000
        configuration.maxConnections = 10_000
        configuration.drainTimeout = .seconds(1)
        let server = HTTPServer(configuration: configuration, router: router, logger: Logger(label: label, level: .critical, sink: MemorySink()))
        try server.start()
        return server
    }
}

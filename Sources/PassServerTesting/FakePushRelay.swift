import Foundation
import HTTPServer
import Logging
import Synchronization

/// A stand-in for the push relay of Android wallet apps (WalletPasses's
/// `POST /api/v1/push {"passTypeIdentifier": …, "pushTokens": […]}`): an HTTP server on
/// 127.0.0.1 with a free port that records every request (its pass type, tokens and
/// `Authorization` header) and answers 200 `{}`, or what the test scripted for the next requests
/// (a status, or a dropped connection).
public final class FakePushRelay: Sendable {
    /// One request the relay received.
    public struct Push: Sendable, Equatable {
        public var passTypeIdentifier: String
        public var pushTokens: [String]
        /// The `Authorization` header (the API key), if any.
        public var authorization: String?
        /// What the relay answered: a status, or 0 for a dropped connection.
        public var answer: Int
    }

    /// A scripted answer for one request.
    public enum Answer: Sendable, Equatable {
        case status(Int)
        /// Sends the status line and headers, then closes the connection before the body ends.
        case dropConnection
    }

    private struct State {
        var pushes: [Push] = []
        var script: [Answer] = []
    }

    /// Shared with the route's handler.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let server: HTTPServer

    /// The path the relay answers on.
    public static let path = "/api/v1/push"

    public init() throws {
        var router = Router()
        let shared = self.shared
        router.post(Self.path) { request in
            struct Body: Decodable {
                var passTypeIdentifier: String
                var pushTokens: [String]
            }
            let body = try request.decode(Body.self)
            let answer = shared.state.withLock { state -> Answer in
                let answer = state.script.isEmpty ? .status(200) : state.script.removeFirst()
                let code = if case .status(let status) = answer { status } else { 0 }
                state.pushes.append(Push(
                    passTypeIdentifier: body.passTypeIdentifier, pushTokens: body.pushTokens, authorization: request.headers["Authorization"], answer: code
                ))
                return answer
            }
            switch answer {
            case .status(let status):
                return Response(status: status, headers: ["Content-Type": "application/json"], body: Array((status == 200 ? "{}" : #"{"error":"scripted"}"#).utf8))
            case .dropConnection:
                struct Dropped: Error {}
                return .streamed(headers: ["Content-Type": "application/json"], BodyStream { throw Dropped() })
            }
        }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = 2
        server = HTTPServer(configuration: configuration, router: router, logger: Logger(label: "fake-relay", level: .critical, sink: MemorySink()))
        try server.start()
    }

    /// `http://127.0.0.1:<port>/api/v1/push`: what ANDROID_PASS_PUSH_URL names in tests.
    public var url: String { "http://127.0.0.1:\(server.port)\(Self.path)" }

    /// Every request received so far, in order.
    public var pushes: [Push] { shared.state.withLock { $0.pushes } }

    /// The requests answered 200.
    public var delivered: [Push] { pushes.filter { $0.answer == 200 } }

    /// The next requests get these answers, in order; later ones 200 again.
    public func script(_ answers: [Answer]) {
        shared.state.withLock { $0.script.append(contentsOf: answers) }
    }

    public func shutdown() {
        server.shutdown()
        server.waitUntilStopped()
    }
}

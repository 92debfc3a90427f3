// A stand-in for Google's Wallet API and OAuth token endpoint on 127.0.0.1, over plain HTTP.
//
// Written from Google's published REST reference, apart from the project's client, so the two
// check each other: the token endpoint verifies the grant's RS256 assertion with the public key a
// test registered; the REST routes keep event ticket classes and objects with Google's checks
// (ids of the fake's issuer, an existing class, a valid state), patch semantics and Google's error
// bodies. Tests queue failures (statuses, dropped connections), expire tokens, and read back every
// request and the stored resources.
//
// Threading: the HTTP server's worker threads answer; all state is behind one `Mutex`.

import ByteEncoding
import Certificates
import Foundation
import HTTPServer
import Logging
import Synchronization

public final class FakeGoogleWallet: Sendable {
    /// Where the fake answers, spelled like the project's Google Wallet endpoints.
    public struct Endpoints: Sendable, Equatable {
        public let api: String
        public let token: String
        public let save: String
        public let callbackKeys: String
    }

    /// What a request is about, for scripted failures and the record.
    public enum Kind: String, Sendable, Hashable {
        case token
        /// The batch request itself (its parts are recorded under their own kinds).
        case batch
        case eventTicketClass
        case eventTicketObject
    }

    /// A scripted answer in place of the real one.
    public enum Failure: Sendable, Equatable {
        /// Google's error body with this status (429, 500, 409, 404 …).
        case status(Int)
        /// The connection is closed without a complete answer.
        case drop
    }

    /// One request as the fake saw and answered it.
    public struct RecordedRequest: Sendable {
        public let method: String
        public let path: String
        public let kind: Kind?
        public let status: Int
        public let body: [UInt8]
        /// A patch with `notifyPreference` or an addMessage whose message is `TEXT_AND_NOTIFY`.
        public let notifying: Bool
        /// Whether the connection was dropped instead of answered.
        public let dropped: Bool
    }

    public let issuerID: String
    let server: HTTPServer
    let state = Mutex(State())
    /// Access tokens live this long (`expires_in`).
    public let tokenLifetime: Int

    struct State {
        var verifiers: [String: Account] = [:]
        var tokens: [String: Date] = [:]
        var failures: [FailureKey: [Failure]] = [:]
        var requests: [RecordedRequest] = []
        var classes: [String: [UInt8]] = [:]
        var objects: [String: [UInt8]] = [:]
        var grants = 0
        var tally = Tally()
    }


    struct Account {
        let keyID: String
        let verifier: FakeRS256Verifier
    }

    struct FailureKey: Hashable {
        let method: String
        let kind: Kind
    }

    /// Starts a fake for `issuerID` on a free loopback port.
    public init(issuerID: String = "3388000000012345678", tokenLifetime: Int = 3599) throws {
        self.issuerID = issuerID
        self.tokenLifetime = tokenLifetime
        let box = Box()
        var router = Router()
        router.post("/token") { request in try box.fake().token(request) }
        router.post("/batch", maxBodySize: 32 << 20) { request in try box.fake().batch(request) }
        for kind in [Kind.eventTicketClass, .eventTicketObject] {
            let base = "/walletobjects/v1/\(kind.rawValue)"
            router.post(base) { request in try box.fake().handle(request, kind: kind, action: .insert) }
            router.get(base + "/:id") { request in try box.fake().handle(request, kind: kind, action: .get) }
            router.patch(base + "/:id") { request in try box.fake().handle(request, kind: kind, action: .patch) }
            router.post(base + "/:id/addMessage") { request in try box.fake().handle(request, kind: kind, action: .addMessage) }
        }
        server = HTTPServer(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 4), router: router,
            logger: Logger(label: "fake-google-wallet", level: .warning, sink: MemorySink())
        )
        box.set(self)
        try server.start()
    }

    deinit { server.shutdown() }

    /// Stops serving; later requests are refused.
    public func shutdown() { server.shutdown() }

    public var port: Int { server.port }

    public var endpoints: Endpoints {
        let origin = "http://127.0.0.1:\(port)"
        return Endpoints(api: "\(origin)/walletobjects/v1", token: "\(origin)/token", save: "\(origin)/gp/v/save", callbackKeys: "\(origin)/gp/m/issuer/keys")
    }

    // MARK: Test controls

    /// Trusts `publicKeyPEM` for assertions of `email` whose header names `keyID`.
    public func register(email: String, keyID: String, publicKeyPEM: String) throws {
        let account = Account(keyID: keyID, verifier: try FakeRS256Verifier(publicKeyPEM: publicKeyPEM))
        state.withLock { $0.verifiers[email] = account }
    }

    /// The next `count` requests of `method` on `kind` get `failure` instead of their answer.
    public func fail(next count: Int = 1, method: String, kind: Kind, with failure: Failure) {
        state.withLock { $0.failures[FailureKey(method: method, kind: kind), default: []].append(contentsOf: Array(repeating: failure, count: count)) }
    }

    /// Every token issued so far stops working now (the API answers 401 to it).
    public func expireTokens() {
        state.withLock { $0.tokens.removeAll() }
    }

    /// Every request so far, oldest first.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// Grants answered with a token.
    public var grants: Int { state.withLock { $0.grants } }

    /// How many objects the fake holds.
    public var storedObjectCount: Int { state.withLock { $0.objects.count } }

    /// Successful object calls and class patches so far, with the times of the first and last
    /// (for benchmarks, without copying the record).
    public var tally: Tally { state.withLock { $0.tally } }

    /// The stored class `id` as JSON bytes.
    public func storedClass(_ id: String) -> [UInt8]? { state.withLock { $0.classes[id] } }

    /// The stored object `id` as JSON bytes.
    public func storedObject(_ id: String) -> [UInt8]? { state.withLock { $0.objects[id] } }

    /// The stored object `id` parsed.
    public func storedObjectJSON(_ id: String) -> [String: Any]? {
        storedObject(id).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    /// The stored class `id` parsed.
    public func storedClassJSON(_ id: String) -> [String: Any]? {
        storedClass(id).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    // MARK: Answers shared by the routes

    /// The scripted failure for this request, if one is queued.
    func takeFailure(method: String, kind: Kind) -> Failure? {
        state.withLock { state in
            let key = FailureKey(method: method, kind: kind)
            guard var queue = state.failures[key], !queue.isEmpty else { return nil }
            let first = queue.removeFirst()
            state.failures[key] = queue
            return first
        }
    }

    func record(_ request: Request, kind: Kind?, status: Int, notifying: Bool = false, dropped: Bool = false) {
        let entry = RecordedRequest(
            method: request.method.rawValue, path: request.path, kind: kind, status: status, body: request.body, notifying: notifying, dropped: dropped
        )
        let now = Date()
        let succeeded = (200..<300).contains(status) && !dropped
        state.withLock { state in
            state.requests.append(entry)
            guard succeeded else { return }
            switch kind {
            case .eventTicketObject:
                state.tally.objectCalls += 1
                if state.tally.firstObjectCall == nil { state.tally.firstObjectCall = now }
                state.tally.lastObjectCall = now
            case .eventTicketClass where entry.method == "PATCH":
                state.tally.classPatches += 1
                state.tally.lastClassPatch = now
            case .batch: state.tally.batches += 1
            default: break
            }
        }
    }

    /// A response that sends its head and then breaks the connection before any body: the
    /// client gets no complete answer.
    static func dropped() -> Response {
        Response.streamed(status: 200, headers: ["Content-Type": "application/json"], BodyStream { throw FakeGoogleWalletError("scripted drop") })
    }

    /// Google's error body: `{"error":{"code","message","errors":[{"message","domain","reason"}],"status"}}`.
    static func googleError(_ status: Int, _ code: String, _ message: String, reason: String) -> Response {
        let body: [String: Any] = [
            "error": [
                "code": status, "message": message, "status": code,
                "errors": [["message": message, "domain": "global", "reason": reason]],
            ] as [String: Any],
        ]
        return jsonResponse(body, status: status)
    }

    /// The Google error a scripted status stands for.
    static func scripted(_ status: Int) -> Response {
        switch status {
        case 400: googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", reason: "invalid")
        case 401: googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", reason: "authError")
        case 403: googleError(403, "PERMISSION_DENIED", "The caller does not have permission", reason: "forbidden")
        case 404: googleError(404, "NOT_FOUND", "Resource not found.", reason: "notFound")
        case 409: googleError(409, "ALREADY_EXISTS", "Resource already exists.", reason: "duplicate")
        case 429: googleError(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", reason: "rateLimitExceeded")
        case 503: googleError(503, "UNAVAILABLE", "The service is currently unavailable.", reason: "backendError")
        default: googleError(status, "INTERNAL", "Internal error encountered.", reason: "backendError")
        }
    }

    static func jsonResponse(_ object: Any, status: Int = 200) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: ["Content-Type": "application/json; charset=UTF-8"], body: Array(data))
    }
}

/// Lets the routes reach the fake that owns the server they are registered on (the router is
/// built before the fake exists). Weak, so the fake's `deinit` still runs.
private final class Box: Sendable {
    private let value = Mutex<WeakFake>(WeakFake())

    private struct WeakFake: @unchecked Sendable {
        // Safe because the reference is only read and written under the Mutex, and the fake is Sendable.
        weak var fake: FakeGoogleWallet?
    }

    func set(_ fake: FakeGoogleWallet) { value.withLock { $0.fake = fake } }

    func fake() throws -> FakeGoogleWallet {
        guard let fake = value.withLock({ $0.fake }) else { throw FakeGoogleWalletError("the fake has stopped") }
        return fake
    }
}

import Foundation
import HTTPClient
import Storage
import Synchronization

/// One delivery ready to go, or the answer it gets without being sent.
enum WebhookOutgoing: Sendable {
    case send(WebhookMessage)
    /// Answered at once (the endpoint is disabled or gone, the event unreadable).
    case answer(WebhookAnswer)
}

/// One delivery: where, the webhook event as recorded (its body is made from it by the sending
/// thread), and the secret to sign it with.
struct WebhookMessage: Sendable {
    var endpointID: String
    var url: String
    /// `whsec_…`: the HMAC key, as the organizer was shown it.
    var secret: String
    var event: WebhookEventRecord
    /// When the claim on its row runs out: a delivery that could not finish before is not started.
    var claimedUntil: Date?
}

/// Sends webhook deliveries with a pool of threads making blocking HTTP requests (`HTTPClient`
/// over libcurl: keep-alive connections, one pooled handle per thread), and reports each answer
/// once.
///
/// Per delivery: the body is made from the webhook event (`render`, on the sending thread, so the
/// outbox's own thread only claims and records), the URL is checked again (`WebhookTargets`), its host resolved once and every
/// address checked, and the request connects to those addresses only (`pinnedAddresses`), follows
/// no redirect and is signed at the moment it goes (`WebhookSignature`: the send time and the
/// body). Deliveries wait in one lane per endpoint (`WebhookLanes`: a few in flight per endpoint,
/// endpoints in turn, a lane that cannot reach its endpoint rests).
///
/// Threading: `send` puts the deliveries in their lanes (a `Mutex`) and wakes the threads; each
/// thread takes one delivery at a time; `answered` is called from those threads (or from `send`
/// for deliveries answered without sending).
final class WebhookSender: OutboxSender {
    typealias Message = WebhookOutgoing
    typealias Answer = WebhookAnswer

    private struct Queued: Sendable {
        var message: WebhookMessage
        var answered: @Sendable (WebhookAnswer) -> Void
    }

    let client: HTTPClient
    let targets: WebhookTargets
    let timeout: Duration
    let resolve: @Sendable (String) throws(HTTPClientError) -> [IPAddress]
    let now: @Sendable () -> Date
    /// Makes a delivery's body from its webhook event.
    let render: @Sendable (WebhookEventRecord) throws -> [UInt8]
    /// Deliveries in flight to one endpoint at once, at most.
    let perEndpoint: Int
    private let lanes: Mutex<WebhookLanes<Queued>>
    private let stopping = Atomic<Bool>(false)
    private let workers: [Worker]
    /// Where the next wake starts, so wakes go round the threads.
    private let nextWake = Atomic<Int>(0)

    /// The `User-Agent` of every delivery.
    static let userAgent = "PassServer-Webhooks/1"

    init(
        targets: WebhookTargets, timeout: Duration, threads: Int, perEndpoint: Int, rest: TimeInterval = 30,
        resolve: @escaping @Sendable (String) throws(HTTPClientError) -> [IPAddress] = { host throws(HTTPClientError) in try HTTPClient.resolve(host) },
        now: @escaping @Sendable () -> Date = Date.init, render: @escaping @Sendable (WebhookEventRecord) throws -> [UInt8]
    ) {
        let threads = max(1, threads)
        client = HTTPClient(configuration: HTTPClientConfiguration(
            connectTimeout: min(timeout, .seconds(10)), maxResponseBody: 64 << 10, pooledHandles: threads
        ))
        self.targets = targets
        self.timeout = timeout
        self.resolve = resolve
        self.now = now
        self.render = render
        self.perEndpoint = max(1, perEndpoint)
        lanes = Mutex(WebhookLanes(concurrency: perEndpoint, rest: rest))
        workers = (0..<threads).map { Worker(name: "webhook-sender-\($0)") }
    }

    func start() {
        for worker in workers { worker.start(Loop(sender: self)) }
    }

    func send(_ messages: [WebhookOutgoing], answered: @escaping @Sendable (_ index: Int, _ answer: WebhookAnswer) -> Void) {
        let time = now()
        var immediate: [(Int, WebhookAnswer)] = []
        if stopping.load(ordering: .sequentiallyConsistent) {
            for index in messages.indices { answered(index, .notSent("the webhook sender is stopping")) }
            return
        }
        lanes.withLock { lanes in
            for (index, outgoing) in messages.enumerated() {
                switch outgoing {
                case .answer(let answer):
                    immediate.append((index, answer))
                case .send(let message):
                    let queued = Queued(message: message, answered: { answered(index, $0) })
                    if let why = lanes.add(queued, endpoint: message.endpointID, now: time) { immediate.append((index, .deferred(why))) }
                }
            }
        }
        for (index, answer) in immediate { answered(index, answer) }
        // As many threads as can take a delivery now: each endpoint's lane takes `perEndpoint` at once.
        let endpoints = Set(messages.compactMap { if case .send(let message) = $0 { message.endpointID } else { nil } }).count
        let count = min(workers.count, messages.count - immediate.count, endpoints * perEndpoint)
        let first = nextWake.add(count, ordering: .relaxed).oldValue
        for offset in 0..<count { workers[(first + offset) % workers.count].wake() }
    }

    func shutdown() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        let dropped = lanes.withLock { $0.drain() }
        for item in dropped { item.answered(.notSent("the webhook sender is stopping")) }
        for worker in workers { worker.shutdown() }
    }

    /// Sends one delivery and returns its answer.
    func deliver(_ message: WebhookMessage) -> WebhookAnswer {
        let start = now()
        if let until = message.claimedUntil, until.timeIntervalSince(start) < Double(timeout.components.seconds) + 2 {
            return .notSent("its claim would run out before the timeout")
        }
        let body: [UInt8]
        do {
            body = try render(message.event)
        } catch {
            return .unsendable("the webhook event cannot be read: \(error)")
        }
        let addresses: [IPAddress]
        do {
            let target = try targets.target(message.url)
            addresses = try targets.addresses(of: target, resolve: resolve)
        } catch {
            // An address refused and a name that does not resolve differ: the second may be the DNS's passing trouble.
            if error.message.hasPrefix("cannot be resolved") { return .unreachable("the host \(error.message)") }
            return .blocked("target refused: \(error.message)")
        }
        let timestamp = Int64(start.timeIntervalSince1970)
        let signature: String
        do {
            signature = try WebhookSignature.header(secret: message.secret, timestamp: timestamp, body: body)
        } catch {
            return .unsendable("the signature cannot be computed")
        }
        var request = HTTPRequest(
            method: "POST", url: message.url,
            headers: [
                ("Content-Type", "application/json"), ("User-Agent", Self.userAgent), (WebhookSignature.idHeader, message.event.publicID),
                (WebhookSignature.typeHeader, message.event.type), (WebhookSignature.signatureHeader, signature),
            ],
            body: body, timeout: timeout
        )
        request.pinnedAddresses = addresses
        do {
            return .answered(status: try client.send(request).status)
        } catch {
            switch error.code {
            case .addressNotAllowed: return .blocked("target refused: \(error.message)")
            case .invalidRequest: return .blocked("the URL cannot be sent: \(error.message)")
            default: return .unreachable(error.description)
            }
        }
    }

    private func next() -> Queued? {
        let time = now()
        return lanes.withLock { $0.next(now: time)?.item }
    }

    /// The delivery's answer, and the lane's: an unreachable endpoint's waiting deliveries are deferred.
    private func finished(_ item: Queued, answer: WebhookAnswer) {
        let unreachable: String? = if case .unreachable(let why) = answer { why } else { nil }
        let time = now()
        let (deferred, opened) = lanes.withLock { $0.finished(endpoint: item.message.endpointID, unreachable: unreachable, now: time) }
        item.answered(answer)
        for other in deferred {
            other.answered(.deferred("not sent: the endpoint could not be reached moments ago (\(unreachable ?? ""))"))
        }
        // A probe answered: its lane has room for more than this thread takes next.
        if opened { for worker in workers { worker.wake() } }
    }

    private final class Loop: WorkerLoop {
        let sender: WebhookSender

        init(sender: WebhookSender) {
            self.sender = sender
        }

        func step(stopping: Bool) -> Worker.Next {
            guard let item = sender.next() else { return stopping ? .done : .sleep(until: Date().addingTimeInterval(1)) }
            sender.finished(item, answer: sender.deliver(item.message))
            return .again
        }
    }
}

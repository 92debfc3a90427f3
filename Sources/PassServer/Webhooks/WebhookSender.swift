import Foundation
import HTTPClient
import Storage
import Synchronization
import SystemSupport

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
/// over libcurl: each thread its own client and handle, with its keep-alive connections), and
/// reports each answer once.
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

    /// Each thread's client (one pooled handle, its keep-alive connections its own).
    let clientConfiguration: HTTPClientConfiguration
    let targets: WebhookTargets
    let timeout: Duration
    let resolve: @Sendable (String) throws(HTTPClientError) -> [IPAddress]
    let now: @Sendable () -> Date
    /// Makes a delivery's body from its webhook event (with the calling thread's events read so far).
    let render: @Sendable (WebhookEventRecord, inout EventBodies) throws -> [UInt8]
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
        now: @escaping @Sendable () -> Date = Date.init, render: @escaping @Sendable (WebhookEventRecord, inout EventBodies) throws -> [UInt8]
    ) {
        let threads = max(1, threads)
        clientConfiguration = HTTPClientConfiguration(connectTimeout: min(timeout, .seconds(10)), maxResponseBody: 64 << 10, pooledHandles: 1)
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
        // Grouped by endpoint outside the lock, each group queued at once under it.
        var groups: [String: [(index: Int, item: Queued)]] = [:]
        for (index, outgoing) in messages.enumerated() {
            switch outgoing {
            case .answer(let answer):
                immediate.append((index, answer))
            case .send(let message):
                groups[message.endpointID, default: []].append((index, Queued(message: message, answered: { answered(index, $0) })))
            }
        }
        lanes.withLock { lanes in
            for (endpoint, group) in groups {
                if let why = lanes.add(group.map(\.item), endpoint: endpoint, now: time) {
                    immediate += group.map { ($0.index, .deferred(why)) }
                }
            }
        }
        for (index, answer) in immediate { answered(index, answer) }
        // As many threads as can take a delivery now: each endpoint's lane takes `perEndpoint` at once.
        let endpoints = groups.count
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

    /// Sends one delivery with `client` and returns its answer.
    func deliver(_ message: WebhookMessage, client: HTTPClient, events: inout EventBodies) -> WebhookAnswer {
        let start = now()
        if let until = message.claimedUntil, until.timeIntervalSince(start) < Double(timeout.components.seconds) + 2 {
            return .notSent("its claim would run out before the timeout")
        }
        let body: [UInt8]
        do {
            body = try render(message.event, &events)
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

    /// Ends `done` (its lane learns how it went) and takes the next delivery, under one lock: a
    /// thread that finished one delivery usually starts the next.
    private func next(after done: (item: Queued, answer: WebhookAnswer)? = nil) -> Queued? {
        let time = now()
        let unreachable: String? = if case .unreachable(let why)? = done?.answer { why } else { nil }
        let (deferred, opened, next) = lanes.withLock { lanes -> ([Queued], Bool, Queued?) in
            var finished: (deferred: [Queued], opened: Bool) = ([], false)
            if let done { finished = lanes.finished(endpoint: done.item.message.endpointID, unreachable: unreachable, now: time) }
            return (finished.deferred, finished.opened, lanes.next(now: time)?.item)
        }
        if let done { done.item.answered(done.answer) }
        for other in deferred {
            other.answered(.deferred("not sent: the endpoint could not be reached moments ago (\(unreachable ?? ""))"))
        }
        // A probe answered: its lane has room for more than this thread takes.
        if opened { for worker in workers { worker.wake() } }
        return next
    }

    private final class Loop: WorkerLoop {
        let sender: WebhookSender
        let client: HTTPClient
        /// The events of this thread's bodies so far.
        var events = EventBodies()

        init(sender: WebhookSender) {
            self.sender = sender
            client = HTTPClient(configuration: sender.clientConfiguration)
        }

        /// The delivery this thread took when it finished its last one.
        var taken: Queued?

        func step(stopping: Bool) -> Worker.Next {
            guard let item = taken ?? sender.next() else { return stopping ? .done : .sleep(until: Date().addingTimeInterval(1)) }
            taken = sender.next(after: (item, sender.deliver(item.message, client: client, events: &events)))
            return .again
        }
    }
}

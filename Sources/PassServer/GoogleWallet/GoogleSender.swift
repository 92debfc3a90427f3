import Foundation
import GoogleWallet
import Synchronization
import SystemSupport

/// One class or object ready to go to Google: its JSON, whether Google holds it already, and
/// whether it is a notifying update.
struct GoogleMessage: Sendable {
    var resource: GoogleWalletClient.Resource
    var id: String
    var body: [UInt8]
    var inserted: Bool
    var notify: Bool
    /// A class's announcement to add with Google's message call once the class is written
    /// (`{"message":{…}}`); nil: none.
    var addMessage: [UInt8]? = nil
}

/// Sends classes and objects to Google's Wallet API with a few threads of blocking calls
/// (`GoogleWalletClient` over libcurl, keep-alive connections), and reports each answer once.
///
/// Per message: a resource Google holds is patched, and inserted when the patch finds none (404);
/// a new one is inserted, and patched when the insert finds it there already (409). A 401 renews
/// the access token once (the client). The classes of a batch are sent before its objects, since
/// Google refuses an object whose class it does not hold.
///
/// Many objects at once (an import, an event's tickets) go as batch requests: each thread takes
/// its share of the waiting objects, up to `maxBatch`, as one request of that many parts, and
/// each part's answer is handled as a single call's (a 400 fails that object only). A few objects
/// go one call each.
///
/// Threading: `send` appends to a queue (a `Mutex`) and wakes the threads; each thread takes a
/// class, an object or a batch of objects at a time; `answered` is called from those threads.
final class GoogleSender: OutboxSender {
    typealias Message = Result<GoogleMessage, GoogleMessageProblem>
    typealias Answer = GoogleDelivery

    private struct Queued: Sendable {
        var message: Message
        var answered: @Sendable (GoogleDelivery) -> Void
        var isClass: Bool
    }

    private struct Queue: Sendable {
        var classes: [Queued] = []
        var objects: [Queued] = []
        var classesInFlight = 0
    }

    /// Objects waiting before a thread sends them as a batch request rather than one by one.
    static let batchThreshold = 20
    /// The most objects in one batch request.
    static let maxBatch = 250

    let client: GoogleWalletClient
    private let queue = Mutex(Queue())
    private let stopping = Atomic<Bool>(false)
    private let workers: [Worker]

    init(client: GoogleWalletClient, threads: Int) {
        self.client = client
        workers = (0..<max(1, threads)).map { Worker(name: "google-sender-\($0)") }
    }

    func start() {
        for worker in workers { worker.start(Loop(sender: self)) }
    }

    func send(_ messages: [Message], answered: @escaping @Sendable (_ index: Int, _ answer: GoogleDelivery) -> Void) {
        let items = messages.enumerated().map { index, message in
            let isClass = (try? message.get().resource) == .eventTicketClass
            return Queued(message: message, answered: { answered(index, $0) }, isClass: isClass)
        }
        guard !stopping.load(ordering: .sequentiallyConsistent) else {
            for item in items { item.answered(.notSent("the Google Wallet sender is stopping")) }
            return
        }
        queue.withLock { queue in
            for item in items {
                if item.isClass { queue.classes.append(item) } else { queue.objects.append(item) }
            }
        }
        for worker in workers { worker.wake() }
    }

    func shutdown() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        let dropped = queue.withLock { queue in
            defer { queue.classes.removeAll(); queue.objects.removeAll() }
            return queue.classes + queue.objects
        }
        for item in dropped { item.answered(.notSent("the Google Wallet sender is stopping")) }
        for worker in workers { worker.shutdown() }
    }

    /// The next messages a thread may send: one class, or objects once no class is waiting or in
    /// flight. Objects go one at a time while few wait (each its own call, in parallel); once at
    /// least `batchThreshold` wait, a thread takes its share of them, at most `maxBatch`, as one
    /// batch request.
    private func next() -> [Queued] {
        queue.withLock { queue in
            if !queue.classes.isEmpty {
                queue.classesInFlight += 1
                return [queue.classes.removeFirst()]
            }
            guard queue.classesInFlight == 0, !queue.objects.isEmpty else { return [] }
            let waiting = queue.objects.count
            let take = waiting < Self.batchThreshold ? 1 : min(Self.maxBatch, max(Self.batchThreshold, (waiting + workers.count - 1) / workers.count))
            let taken = Array(queue.objects.prefix(take))
            queue.objects.removeFirst(taken.count)
            return taken
        }
    }

    private func finished(_ items: [Queued]) {
        guard items.contains(where: \.isClass) else { return }
        let released = queue.withLock { queue in
            queue.classesInFlight -= items.count(where: \.isClass)
            return queue.classesInFlight == 0 && !queue.objects.isEmpty
        }
        if released { for worker in workers { worker.wake() } }
    }

    /// Sends messages together (one batch request when more than one), each with the fallbacks
    /// of a single call: an insert answered 409 is sent again as a patch, a patch answered 404 as
    /// an insert (those again together). Each part's answer counts for its message alone.
    func deliver(_ items: [Message]) -> [GoogleDelivery] {
        var deliveries = [GoogleDelivery?](repeating: nil, count: items.count)
        var ready: [(index: Int, message: GoogleMessage)] = []
        for (index, item) in items.enumerated() {
            switch item {
            case .failure(let problem): deliveries[index] = .unwritable(problem.message)
            case .success(let message): ready.append((index, message))
            }
        }
        if !ready.isEmpty {
            if let refusal = tokenProblem() {
                for entry in ready { deliveries[entry.index] = refusal }
            } else {
                var answers = call(ready.map { Self.call($0.message, patch: $0.message.inserted) })
                let fallbacks = ready.indices.filter { answers[$0].status == (ready[$0].message.inserted ? 404 : 409) }
                if !fallbacks.isEmpty {
                    let again = call(fallbacks.map { Self.call(ready[$0].message, patch: !ready[$0].message.inserted) })
                    for (position, answer) in zip(fallbacks, again) { answers[position] = answer }
                }
                // A class written with an announcement to add: the message call follows, and its
                // answer is the message's (retried as a whole: the class is written again first,
                // without the announcement, so it is never added twice).
                for (position, entry) in ready.enumerated() {
                    if let body = entry.message.addMessage, case .success = answers[position] {
                        answers[position] = client.addMessage(entry.message.resource, id: entry.message.id, body: body)
                    }
                }
                for (position, entry) in ready.enumerated() { deliveries[entry.index] = Self.delivery(answers[position], notify: entry.message.notify) }
            }
        }
        return deliveries.map { $0 ?? .notSent("no answer") }
    }

    private static func call(_ message: GoogleMessage, patch: Bool) -> GoogleWalletCall {
        patch ? .patch(message.resource, id: message.id, body: message.body) : .insert(message.resource, body: message.body)
    }

    /// Calls alone or, several, as one batch request (the client splits above Google's limit).
    private func call(_ calls: [GoogleWalletCall]) -> [GoogleWalletAnswer] {
        calls.count == 1 ? [client.call(calls[0])] : client.batch(calls)
    }

    /// Why no call can be made: a refused grant is our credentials', whatever status the token endpoint used.
    private func tokenProblem() -> GoogleDelivery? {
        do {
            _ = try client.tokens.token()
            return nil
        } catch {
            switch error {
            case .refused(let refusal): return .refused(status: 401, reason: "the token endpoint refused the service account: \(refusal)")
            case .transport(let failure): return .unreachable("token endpoint: \(failure)")
            case .local(let failure): return .refused(status: 401, reason: "the service account cannot sign its grant: \(failure)")
            }
        }
    }

    private static func delivery(_ answer: GoogleWalletAnswer, notify: Bool) -> GoogleDelivery {
        switch answer {
        case .success(let status, _): .synced(status: status, notified: notify)
        case .googleError(let error): .refused(status: error.status, reason: error.description)
        case .transportFailure(let failure): .unreachable("\(failure)")
        case .credentialFailure(let failure): .refused(status: 401, reason: "\(failure)")
        }
    }

    private final class Loop: WorkerLoop {
        let sender: GoogleSender

        init(sender: GoogleSender) {
            self.sender = sender
        }

        func step(stopping: Bool) -> Worker.Next {
            let items = sender.next()
            guard !items.isEmpty else { return stopping ? .done : .sleep(until: nil) }
            let deliveries = sender.deliver(items.map(\.message))
            sender.finished(items)
            for (item, delivery) in zip(items, deliveries) { item.answered(delivery) }
            return .again
        }
    }
}

/// Why a row's class or object could not be written.
struct GoogleMessageProblem: Error, Sendable {
    var message: String
}

import Foundation
import GoogleWallet
import Synchronization

/// One class or object ready to go to Google: its JSON, whether Google holds it already, and
/// whether it is a notifying update.
struct GoogleMessage: Sendable {
    var resource: GoogleWalletClient.Resource
    var id: String
    var body: [UInt8]
    var inserted: Bool
    var notify: Bool
}

/// Sends classes and objects to Google's Wallet API with a few threads of blocking calls
/// (`GoogleWalletClient` over libcurl, keep-alive connections), and reports each answer once.
///
/// Per message: a resource Google holds is patched, and inserted when the patch finds none (404);
/// a new one is inserted, and patched when the insert finds it there already (409). A 401 renews
/// the access token once (the client). The classes of a batch are sent before its objects, since
/// Google refuses an object whose class it does not hold.
///
/// Threading: `send` appends to a queue (a `Mutex`) and wakes the threads; each thread takes one
/// message at a time; `answered` is called from those threads.
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

    /// The next message a thread may send: a class, or an object once no class is waiting or in flight.
    private func next() -> Queued? {
        queue.withLock { queue in
            if !queue.classes.isEmpty {
                queue.classesInFlight += 1
                return queue.classes.removeFirst()
            }
            guard queue.classesInFlight == 0, !queue.objects.isEmpty else { return nil }
            return queue.objects.removeFirst()
        }
    }

    private func finished(_ item: Queued) {
        guard item.isClass else { return }
        let released = queue.withLock { queue in
            queue.classesInFlight -= 1
            return queue.classesInFlight == 0 && !queue.objects.isEmpty
        }
        if released { for worker in workers { worker.wake() } }
    }

    /// Sends one message, with the patch/insert fallbacks.
    func deliver(_ item: Message) -> GoogleDelivery {
        let message: GoogleMessage
        switch item {
        case .failure(let problem): return .unwritable(problem.message)
        case .success(let ready): message = ready
        }
        // A refused grant is our credentials', whatever status the token endpoint used.
        do {
            _ = try client.tokens.token()
        } catch {
            switch error {
            case .refused(let refusal): return .refused(status: 401, reason: "the token endpoint refused the service account: \(refusal)")
            case .transport(let failure): return .unreachable("token endpoint: \(failure)")
            case .local(let failure): return .refused(status: 401, reason: "the service account cannot sign its grant: \(failure)")
            }
        }
        var answer: GoogleWalletAnswer
        if message.inserted {
            answer = client.patch(message.resource, id: message.id, body: message.body)
            if answer.status == 404 { answer = client.insert(message.resource, body: message.body) }
        } else {
            answer = client.insert(message.resource, body: message.body)
            if answer.status == 409 { answer = client.patch(message.resource, id: message.id, body: message.body) }
        }
        switch answer {
        case .success(let status, _): return .synced(status: status, notified: message.notify)
        case .googleError(let error): return .refused(status: error.status, reason: error.description)
        case .transportFailure(let failure): return .unreachable("\(failure)")
        case .credentialFailure(let failure): return .refused(status: 401, reason: "\(failure)")
        }
    }

    private final class Loop: WorkerLoop {
        let sender: GoogleSender

        init(sender: GoogleSender) {
            self.sender = sender
        }

        func step(stopping: Bool) -> Worker.Next {
            guard let item = sender.next() else { return stopping ? .done : .sleep(until: nil) }
            let delivery = sender.deliver(item.message)
            sender.finished(item)
            item.answered(delivery)
            return .again
        }
    }
}

/// Why a row's class or object could not be written.
struct GoogleMessageProblem: Error, Sendable {
    var message: String
}

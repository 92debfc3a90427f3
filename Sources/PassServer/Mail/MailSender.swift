import Foundation
import Mail
import Synchronization
import SystemSupport

/// A message ready to leave: the envelope, the bytes, and until when its outbox row is ours.
struct OutgoingMail: Sendable {
    var from: String
    var to: String
    var bytes: [UInt8]
    /// The row's lease: a message that could not finish before it is not started (another process
    /// may claim the row after it).
    var claimedUntil: Date?
}

/// Sends ticket emails over one SMTP connection (libcurl through `SMTPClient`), one message at a
/// time, in the order handed over, starting one at most every `1 / rate` seconds (so messages the
/// server held back do not leave in a rush once it answers again), and reports each outcome once.
///
/// Threading: `send` only appends to a queue (a `Mutex`) and wakes the sender's own `Worker`
/// thread, which owns the SMTP client and makes every blocking call; `answered` is called from
/// that thread. `stop()` makes the thread drop what has not started (reported as not sent) and
/// finish the message in progress.
final class MailSender: OutboxSender {
    typealias Message = Result<OutgoingMail, MailError>
    typealias Answer = MailDelivery

    private struct Queued: Sendable {
        var message: Message
        var answered: @Sendable (MailDelivery) -> Void
    }

    private let queue = Mutex<[Queued]>([])
    private let stopping = Atomic<Bool>(false)
    private let worker = Worker(name: "mail-sender")
    /// The sender thread's loop (it owns the SMTP client) until `start()` hands it to the thread.
    private let loop: Mutex<Loop?>
    private let now: @Sendable () -> Date
    /// Time a message may take (`SMTPConfiguration.messageTimeout`): one is not started when less
    /// of its lease is left.
    private let messageTimeout: TimeInterval
    /// Seconds between the starts of two messages (`1 / MAIL_RATE`).
    private let interval: TimeInterval

    /// Sets up the SMTP client (libcurl); nothing connects before the first message.
    init(smtp: SMTPConfiguration, rate: Double, now: @escaping @Sendable () -> Date = Date.init) throws(MailError) {
        self.now = now
        interval = 1 / max(rate, 0.001)
        messageTimeout = TimeInterval(smtp.messageTimeout.components.seconds)
        loop = Mutex(Loop(client: try SMTPClient(smtp)))
    }

    /// Starts the sender thread. Only the first call starts anything.
    func start() {
        guard let loop = loop.withLock({ value in value.take() }) else { return }
        loop.sender = self
        worker.start(loop)
    }

    func send(_ messages: [Message], answered: @escaping @Sendable (_ index: Int, _ answer: MailDelivery) -> Void) {
        let items = messages.enumerated().map { index, message in Queued(message: message, answered: { answered(index, $0) }) }
        guard !stopping.load(ordering: .sequentiallyConsistent) else {
            for item in items { item.answered(.notSent("the mail sender is stopping")) }
            return
        }
        queue.withLock { $0 += items }
        worker.wake()
    }

    /// Drops the messages not started yet (each reported as not sent, so the outbox retries it at
    /// once) and lets the one in progress finish. Idempotent; `send` answers at once from now on.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        let dropped = queue.withLock { items in
            defer { items.removeAll() }
            return items
        }
        for item in dropped { item.answered(.notSent("the mail sender is stopping")) }
    }

    /// Stops (see `stop()`) and waits for the message in progress.
    func shutdown() {
        stop()
        worker.shutdown()
    }

    /// The sender thread: takes one message at a time and sends it.
    private final class Loop: WorkerLoop {
        /// Set by `start()`, before the thread runs.
        var sender: MailSender?
        let client: SMTPClient
        /// When the next message may start.
        var nextStart = Date.distantPast

        init(client: SMTPClient) {
            self.client = client
        }

        func step(stopping: Bool) -> Worker.Next {
            guard let sender else { return .done }
            let time = sender.now()
            let waiting = sender.queue.withLock { !$0.isEmpty }
            if waiting && time < nextStart { return .sleep(until: nextStart) }
            let next = sender.queue.withLock { items in items.isEmpty ? nil : items.removeFirst() }
            guard let next else { return stopping ? .done : .sleep(until: nil) }
            let delivery = deliver(next.message, by: sender)
            if case .sent = delivery { nextStart = max(time, nextStart).addingTimeInterval(sender.interval) }
            next.answered(delivery)
            return .again
        }

        private func deliver(_ message: Message, by sender: MailSender) -> MailDelivery {
            switch message {
            case .failure(let problem):
                return .unwritable(problem.message)
            case .success(let mail):
                if let until = mail.claimedUntil, until.timeIntervalSince(sender.now()) < sender.messageTimeout {
                    return .notSent("its claim ran out while it waited")
                }
                return .sent(client.send(from: mail.from, to: mail.to, message: mail.bytes))
            }
        }
    }
}

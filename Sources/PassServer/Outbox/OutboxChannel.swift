import Foundation
import Storage

/// A claimed outbox row, as far as the engine's bookkeeping needs it.
protocol OutboxItem: Sendable {
    var id: Int64 { get }
    /// The row's generation at the claim: a change since then keeps the row alive after sending.
    var generation: Int64 { get }
    /// Failed attempts so far.
    var attempts: Int { get }
    var firstEnqueuedAt: Date { get }
    /// The order in which transactions lock rows of this outbox (see `OutboxTable`).
    static func locksBefore(_ a: Self, _ b: Self) -> Bool
}

extension OutboxRow: OutboxItem {}

/// Sends messages and reports each answer exactly once, from any thread (the APNs client calls
/// back on its I/O thread). `answered` must stay short: the engine only appends to its queue.
///
/// The one sender protocol of every channel: `APNSClient`, the log-only and relay push senders,
/// `MailSender`, `GoogleSender` and `WebhookSender` conform to it themselves. A channel that picks
/// its sender at run time keeps it as `any OutboxSender<Message, Answer>`.
protocol OutboxSender<Message, Answer>: Sendable {
    associatedtype Message: Sendable
    associatedtype Answer: Sendable
    func send(_ messages: [Message], answered: @escaping @Sendable (_ index: Int, _ answer: Answer) -> Void)
    /// Stops sending; answers still owed arrive as failures.
    func shutdown()
}

/// A reply policy: what one answer means for its row. Pure (the push reply table is one).
protocol OutboxPolicy: Sendable {
    associatedtype Answer: Sendable
    /// What the bookkeeping does besides settling the row (pushes: prune a dead token's
    /// registrations), carried by the outcome (`OutboxOutcome.applied`); `Never` for none.
    associatedtype Effect: OutboxEffect
    /// `attempts` counts this one (1-based); `random` in 0..<1 is the jitter.
    func decide(_ answer: Answer, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> OutboxDecision<Effect>
}

/// The policy's verdict on one answer.
struct OutboxDecision<Effect: OutboxEffect>: Sendable {
    enum Settlement: Sendable, Equatable {
        /// Done (delivered, or nothing more to do).
        case completed
        /// Send again after this many seconds.
        case retry(after: TimeInterval)
        /// Give up on this row (reason kept on the row).
        case failed(reason: String)
        /// Our own credentials or configuration are refused: keep the row and pause ALL sending
        /// (`why` names the answer).
        case halt(why: String)
    }

    var settlement: Settlement
    /// The answer as recorded: a status (0 when none arrived) and a reason.
    var status: Int
    var reason: String?
    /// What became of the answer, for the counters and the log. Its effect (`result.effect`) is
    /// done in the same transaction, after the rows are settled (the rows are locked first).
    var result: OutboxOutcome<Effect>
    /// Whether the answer shows the far end accepts our messages again (ends a halt).
    var accepted = false
    /// Whether the far end refused the message itself as malformed (a mistake in how we build
    /// messages: logged as an error).
    var rejected = false

    /// The word the log keeps (`delivered`, `retried`, …).
    var outcome: String { result.kind.rawValue }
    /// The bounded label of an effect or a failure (Apple's reason, `gave_up`, …).
    var label: String? { result.label }
}

/// One kind of outbox (pushes, mail, Google Wallet, webhooks): its table, its sender and its reply
/// policy. The engine claims, sends and settles; the channel supplies everything specific.
protocol OutboxChannel: Sendable {
    associatedtype Row: OutboxItem
    associatedtype Message: Sendable
    associatedtype Policy: OutboxPolicy
    /// The sender as the channel keeps it: a conforming type (`MailSender`), or
    /// `any OutboxSender<Message, Policy.Answer>` when it is chosen at run time (pushes).
    associatedtype Sender: Sendable

    var sender: Sender { get }
    /// The sender as the engine calls it; given for a `Sender` that conforms itself.
    var outboxSender: any OutboxSender<Message, Policy.Answer> { get }
    var policy: Policy { get }

    /// Claims up to `limit` due rows for `lease` (`FOR UPDATE SKIP LOCKED` where several processes share the table).
    func claim(limit: Int, now: Date, lease: Duration) throws -> [Row]
    func message(for row: Row) -> Message
    /// What `record` learnt that the counters need (pushes: registrations pruned by reason).
    associatedtype Receipt: Sendable

    /// Writes a decided batch in ONE transaction: the rows' settlement first (it locks them), then
    /// the effects, then the log.
    func record(_ batch: OutboxBatch<Self>, now: Date) throws -> Receipt
    /// After `record` committed (with its receipt), or failed for a reason other than an outage
    /// (nil: the rows are then sent again after their lease): counters, log lines, reachability.
    func recorded(_ batch: OutboxBatch<Self>, receipt: Receipt?, now: Date)
    /// Sending paused for `pause`, until `until`, because of `why` / sending resumed after a probe was accepted.
    func halted(why: String, until: Date, pause: TimeInterval)
    func resumed()
}

extension OutboxChannel where Sender: OutboxSender, Sender.Message == Message, Sender.Answer == Policy.Answer {
    var outboxSender: any OutboxSender<Message, Policy.Answer> { sender }
}

/// One answered row on its way from the sender's thread to the engine's.
struct OutboxAnswer<Row: OutboxItem, Answer: Sendable>: Sendable {
    var row: Row
    var answer: Answer
    var latency: Duration
}

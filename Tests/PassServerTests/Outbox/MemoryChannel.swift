import Foundation
import Synchronization

@testable import PassServer

/// An outbox channel that keeps its rows in memory and sends by answering from a thread of its
/// own, as the APNs client does: what the engine tests drive the engine with. It models what the
/// engine relies on from a channel (due rows handed out once per claim, a settlement per answer,
/// answers arriving on another thread, later or never) and records what the engine did.
final class MemoryChannel: OutboxChannel {
    struct Row: OutboxItem {
        var id: Int64
        var generation: Int64 = 1
        var attempts = 0
        var firstEnqueuedAt: Date
        static func locksBefore(_ a: Row, _ b: Row) -> Bool { a.id < b.id }
    }

    /// What the far end answers.
    enum Answer: Sendable, Equatable {
        case accepted
        case busy
        case refused
        case refusesOurCredentials
    }

    struct Policy: OutboxPolicy {
        func decide(_ answer: Answer, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> OutboxDecision<Never> {
            switch answer {
            case .accepted:
                OutboxDecision(settlement: .completed, status: 200, reason: nil, result: .delivered, accepted: true)
            case .busy:
                OutboxDecision(settlement: .retry(after: 60), status: 503, reason: "busy", result: .retried)
            case .refused:
                OutboxDecision(settlement: .failed(reason: "refused"), status: 400, reason: "refused", result: .failed(reason: "unknown"))
            case .refusesOurCredentials:
                OutboxDecision(settlement: .halt(why: "403"), status: 403, reason: "credentials", result: .halted)
            }
        }
    }

    /// Answers each message on its own serial queue with what `answer` says; a nil answer is held
    /// until `release()` (or `shutdown()`, which answers it `.busy`, as a client that stops does).
    final class Sender: OutboxSender {
        private let queue = DispatchQueue(label: "memory-sender")
        let answer: Mutex<@Sendable (Int64) -> Answer?>
        private let held = Mutex<[(id: Int64, answered: @Sendable (Answer) -> Void)]>([])
        /// Every message sent, in order, and the sizes of the sends.
        let sent = Mutex<(ids: [Int64], sizes: [Int])>(([], []))
        /// Called on the sender's thread once every message of a send call has been answered or held.
        let afterSend = Mutex<(@Sendable () -> Void)?>(nil)

        init(answer: @escaping @Sendable (Int64) -> Answer? = { _ in .accepted }) {
            self.answer = Mutex(answer)
        }

        func send(_ messages: [Int64], answered: @escaping @Sendable (Int, Answer) -> Void) {
            sent.withLock { sent in
                sent.ids += messages
                sent.sizes.append(messages.count)
            }
            queue.async { [self] in
                let decide = answer.withLock { $0 }
                for (index, id) in messages.enumerated() {
                    if let reply = decide(id) {
                        answered(index, reply)
                    } else {
                        held.withLock { $0.append((id, { answered(index, $0) })) }
                    }
                }
                afterSend.withLock { $0 }?()
            }
        }

        /// Answers every held message with `answer`.
        func release(_ answer: Answer = .accepted) {
            let waiting = held.withLock { held in defer { held.removeAll() }; return held }
            queue.async { for message in waiting { message.answered(answer) } }
        }

        var heldCount: Int { held.withLock { $0.count } }
        var sentIDs: [Int64] { sent.withLock { $0.ids } }

        func shutdown() {
            release(.busy)
            queue.sync {}
        }
    }

    struct Stored: Sendable {
        var row: Row
        var due: Date
        var claimedUntil: Date?
        var failed = false
    }

    /// What the engine did, as the channel saw it.
    struct Seen: Sendable {
        var rows: [Int64: Stored] = [:]
        var nextID: Int64 = 1
        /// Each claim's limit and how many rows it returned.
        var claims: [(limit: Int, count: Int)] = []
        /// Each recorded batch: the row ids and the name of the thread that recorded it.
        var batches: [(ids: [Int64], thread: String)] = []
        var halts: [String] = []
        var resumes = 0
    }

    let sender: Sender
    let policy = Policy()
    let seen = Mutex(Seen())
    /// Runs at the start of `record`, on the engine's thread (a test may hold the engine there).
    let beforeRecord = Mutex<(@Sendable () -> Void)?>(nil)

    init(sender: Sender = Sender()) {
        self.sender = sender
    }

    /// Adds `count` rows due at `due`.
    func enqueue(_ count: Int, due: Date) {
        seen.withLock { seen in
            for _ in 0..<count {
                let id = seen.nextID
                seen.nextID += 1
                seen.rows[id] = Stored(row: Row(id: id, firstEnqueuedAt: due), due: due)
            }
        }
    }

    func claim(limit: Int, now: Date, lease: Duration) throws -> [Row] {
        seen.withLock { seen in
            let due = seen.rows.values.filter { !$0.failed && $0.due <= now && ($0.claimedUntil.map { $0 <= now } ?? true) }
                .sorted { $0.row.id < $1.row.id }.prefix(limit)
            for stored in due { seen.rows[stored.row.id]?.claimedUntil = now.addingTimeInterval(Double(lease.components.seconds)) }
            seen.claims.append((limit, due.count))
            return due.map(\.row)
        }
    }

    func message(for row: Row) -> Int64 { row.id }

    func record(_ batch: OutboxBatch<MemoryChannel>, now: Date) throws -> Int {
        beforeRecord.withLock { $0 }?()
        let thread = Self.threadName()
        return seen.withLock { seen in
            for entry in batch.settlement.entries {
                switch entry.change {
                case .completed:
                    seen.rows[entry.id] = nil
                case .retry(let next, _, _):
                    seen.rows[entry.id]?.due = next
                    seen.rows[entry.id]?.claimedUntil = nil
                    seen.rows[entry.id]?.row.attempts += 1
                case .failed:
                    seen.rows[entry.id]?.failed = true
                }
            }
            seen.batches.append((batch.items.map(\.row.id), thread))
            return batch.items.count
        }
    }

    func recorded(_ batch: OutboxBatch<MemoryChannel>, receipt: Int?, now: Date) {}

    func halted(why: String, until: Date, pause: TimeInterval) {
        seen.withLock { $0.halts.append(why) }
    }

    func resumed() {
        seen.withLock { $0.resumes += 1 }
    }

    var remaining: Int { seen.withLock { $0.rows.count } }
    var recordedIDs: [Int64] { seen.withLock { $0.batches.flatMap(\.ids) } }

    /// The calling thread's name as the kernel knows it.
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Pacing set by the test: an allowance of nil lets everything through; what is sent is taken
/// off the allowance. Counts how often the engine asked, so a test can see the engine at work.
struct ManualPacing: OutboxPacing {
    final class Allowance: Sendable {
        let value = Mutex<Int?>(nil)
        /// How many times the engine asked for the allowance.
        let asked = Atomic<Int>(0)
        var askedCount: Int { asked.load(ordering: .sequentiallyConsistent) }
    }

    let allowance: Allowance

    mutating func allowance(now: Date) -> Int? {
        allowance.asked.add(1, ordering: .sequentiallyConsistent)
        return allowance.value.withLock { $0 }
    }

    mutating func sent(_ count: Int, now: Date) {
        allowance.value.withLock { value in value = value.map { max(0, $0 - count) } }
    }

    var recheckInterval: TimeInterval { 0.01 }
}

import Foundation
import Mail

/// What one SMTP answer means for a ticket's email. Pure, tested without a server.
///
/// - accepted (2xx): sent; the row leaves the outbox.
/// - 4xx or no answer (connection refused or lost, timeout): tried again with backoff and jitter
///   until `schedule.maxRetryAge`, then failed with the last answer.
/// - 5xx to the recipient or the content: failed for good with the server's reply. Only that
///   ticket is affected: an attendee's bad address never slows anyone else.
/// - refused us (AUTH, our sender, TLS we require, a certificate we do not trust): every message
///   would get it, so all sending pauses (`halt`) and one message probes again later.
struct MailPolicy: OutboxPolicy {
    var schedule: RetrySchedule

    /// Nothing besides settling the row and keeping the answer on the ticket.
    typealias Effect = Never

    func decide(_ delivery: MailDelivery, attempts: Int, enqueuedAt: Date, now: Date, random: Double) -> OutboxDecision<Never> {
        switch delivery {
        case .sent(.accepted(let reply)):
            return OutboxDecision(settlement: .completed, status: reply.code, reason: reply.description, result: .sent, accepted: true)
        case .sent(.transient(let failure)):
            let status = failure.reply?.code ?? 0
            guard let wait = schedule.retry(attempts: attempts, enqueuedAt: enqueuedAt, now: now, random: random) else {
                return OutboxDecision(
                    settlement: .failed(reason: "gave up after \(attempts) attempts: \(failure)"), status: status, reason: failure.description,
                    result: .failed(reason: "gave_up")
                )
            }
            return OutboxDecision(settlement: .retry(after: wait), status: status, reason: failure.description, result: .retried)
        case .sent(.rejected(let failure)):
            return OutboxDecision(
                settlement: .failed(reason: failure.description), status: failure.reply?.code ?? 0, reason: failure.description,
                result: .failed(reason: "rejected")
            )
        case .sent(.refused(let failure)):
            return OutboxDecision(
                settlement: .halt(why: "\(failure.stage.rawValue): \(failure)"), status: failure.reply?.code ?? 0, reason: failure.description,
                result: .halted
            )
        case .unwritable(let problem):
            return OutboxDecision(settlement: .failed(reason: problem), status: 0, reason: problem, result: .failed(reason: "unwritable"))
        case .notSent(let why):
            return OutboxDecision(settlement: .retry(after: 0), status: 0, reason: why, result: .deferred)
        }
    }
}

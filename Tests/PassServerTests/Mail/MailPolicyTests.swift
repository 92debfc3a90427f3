import Foundation
import Mail
import PassServerTesting
import Testing

@testable import PassServer

/// The mail reply policy and `MAIL_RATE` pacing, pure: no server, no clock.
@Suite("Mail reply policy and pacing", .offCooperativePool)
struct MailPolicyTests {
    let policy = MailPolicy(schedule: RetrySchedule(baseDelay: 30, maxDelay: 1_800, maxRetryAge: 86_400))
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func decide(_ delivery: MailDelivery, attempts: Int = 1, queuedAgo: TimeInterval = 60, random: Double = 0.5) -> OutboxDecision<Never> {
        policy.decide(delivery, attempts: attempts, enqueuedAt: now.addingTimeInterval(-queuedAgo), now: now, random: random)
    }

    static func failure(_ stage: SMTPStage, _ code: Int?, _ text: String = "text") -> SMTPFailure {
        SMTPFailure(stage: stage, reply: code.map { SMTPReply(code: $0, text: text) }, detail: "connection refused")
    }

    @Test("2xx: sent, and the far end accepts us (ends a pause)")
    func accepted() {
        let decision = decide(.sent(.accepted(SMTPReply(code: 250, text: "2.0.0 Ok: queued as X"))))
        #expect(decision.settlement == .completed && decision.accepted && decision.outcome == "sent")
        #expect(decision.status == 250 && decision.reason == "250 2.0.0 Ok: queued as X")
    }

    @Test("4xx and no answer: retried with backoff in [base/2, base·2^(n-1)], until the retry age; then failed")
    func transient() {
        let greylisted = decide(.sent(.transient(Self.failure(.recipient, 451, "4.7.1 Greylisted"))), attempts: 3, random: 1)
        #expect(greylisted.settlement == .retry(after: 120) && greylisted.outcome == "retried" && greylisted.reason == "451 4.7.1 Greylisted")
        let first = decide(.sent(.transient(Self.failure(.connect, nil))), attempts: 1, random: 0)
        #expect(first.settlement == .retry(after: 15) && first.status == 0 && first.reason == "connection refused")
        let capped = decide(.sent(.transient(Self.failure(.data, 421))), attempts: 30, random: 1)
        #expect(capped.settlement == .retry(after: 1_800))
        let old = decide(.sent(.transient(Self.failure(.recipient, 451))), attempts: 40, queuedAgo: 86_000, random: 1)
        guard case .failed(let reason) = old.settlement else {
            Issue.record("expected failed, got \(old.settlement)")
            return
        }
        #expect(reason.hasPrefix("gave up after 40 attempts: 451 text") && old.label == "gave_up")
    }

    @Test("5xx to the recipient or the content: failed for good with the reply, only that message")
    func rejected() {
        let unknown = decide(.sent(.rejected(Self.failure(.recipient, 550, "5.1.1 <x@example.com>: User unknown"))))
        #expect(unknown.settlement == .failed(reason: "550 5.1.1 <x@example.com>: User unknown"))
        #expect(unknown.label == "rejected" && unknown.outcome == "failed" && unknown.status == 550 && !unknown.accepted)
    }

    @Test("refused us (AUTH, sender, TLS): halt everything, naming the step and the reply")
    func refused() {
        let auth = decide(.sent(.refused(Self.failure(.authentication, 535, "5.7.8 Authentication credentials invalid"))))
        #expect(auth.settlement == .halt(why: "AUTH: 535 5.7.8 Authentication credentials invalid") && auth.outcome == "halted")
        let tls = decide(.sent(.refused(Self.failure(.connect, nil))))
        #expect(tls.settlement == .halt(why: "connect: connection refused"))
    }

    @Test("unwritable: failed at once, nothing retried; not sent: due again at once")
    func notSent() {
        let unwritable = decide(.unwritable("template x has no email texts"))
        #expect(unwritable.settlement == .failed(reason: "template x has no email texts") && unwritable.label == "unwritable")
        let deferred = decide(.notSent("its claim ran out while it waited"))
        #expect(deferred.settlement == .retry(after: 0) && deferred.outcome == "deferred")
    }

    @Test("pacing: a burst of a fifth of a second's worth, then the rate; never more over time")
    func pacing() {
        var pacing = MailPacing(rate: 100)
        #expect(pacing.burst == 20)
        #expect(pacing.allowance(now: now) == 20)
        pacing.sent(20, now: now)
        #expect(pacing.allowance(now: now) == 0)
        #expect(pacing.allowance(now: now.addingTimeInterval(0.1)) == 10)
        pacing.sent(10, now: now.addingTimeInterval(0.1))
        // A long pause refills no more than one burst.
        #expect(pacing.allowance(now: now.addingTimeInterval(60)) == 20)
        var slow = MailPacing(rate: 0.5)
        #expect(slow.burst == 1 && slow.allowance(now: now) == 1)
        slow.sent(1, now: now)
        #expect(slow.allowance(now: now.addingTimeInterval(1)) == 0)
        #expect(slow.allowance(now: now.addingTimeInterval(2)) == 1)
        #expect(slow.recheckInterval == 1)
    }
}

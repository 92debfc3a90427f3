import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Synchronization
import Testing

@testable import Storage

/// The mail outbox and the tickets' email status, on both backends: queueing (never twice while
/// queued; sent ones only on a resend), claiming with the ticket and its event, recording answers,
/// event sends in resumable batches, and the counts the API and metrics show.
@Suite("Mail outbox", .offCooperativePool, .timeLimit(.minutes(3)))
struct MailOutboxTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// An event with `count` tickets that have an address.
    static func event(_ fixture: StoreFixture, tickets count: Int, now: Date) throws -> (Event, [StoredPass]) {
        let event = try fixture.makeEvent(now: now)
        let passes = try (0..<count).map { index in try fixture.makePass(serial: "M\(index)", eventID: event.id, name: "Guest \(index)", now: now) }
        return (event, passes)
    }

    /// Settles `rows` as `change` and records `kind` for them, in one transaction (as the mail channel does).
    static func answer(_ fixture: StoreFixture, _ rows: [MailOutboxRow], _ change: OutboxSettlement.Change, _ kind: EmailResult.Kind, reply: String?, now: Date) throws {
        try fixture.store.transaction { session in
            try session.outbox.settleOutbox(
                OutboxSettlement(entries: rows.map { .init(id: $0.id, generation: $0.generation, change: change) }), in: .mail, now: now
            )
            try session.mail.recordEmails(rows.map { EmailResult(passID: $0.passID, kind: kind, reply: reply) }, now: now)
        }
    }

    static func claim(_ fixture: StoreFixture, now: Date, limit: Int = 100) throws -> [MailOutboxRow] {
        try fixture.store.withSession(.write) { try $0.mail.claimEmails(limit: limit, now: now, lease: .seconds(60)) }
    }

    static func status(_ fixture: StoreFixture, _ pass: StoredPass) throws -> TicketEmail? {
        try fixture.store.withSession(.read) { try $0.mail.ticketEmails(passIDs: [pass.id])[pass.id] }
    }

    @Test("a ticket's email: queued once, claimed with its ticket and event, sent, and queued again on request", arguments: Backend.allCases)
    func oneTicket(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let (event, passes) = try Self.event(fixture, tickets: 1, now: now)
        let pass = passes[0]
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueEmails(passIDs: [pass.id], now: now) } == [pass.id])
        // Already queued: nothing more (one message).
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueEmails(passIDs: [pass.id], now: now) }.isEmpty)
        #expect(try Self.status(fixture, pass)?.state == .queued)

        let claimed = try Self.claim(fixture, now: now)
        #expect(claimed.count == 1)
        #expect(claimed.first?.ticket?.serialNumber == pass.serialNumber && claimed.first?.event?.id == event.id)
        #expect(try Self.claim(fixture, now: now).isEmpty, "a claimed row is not claimed again within its lease")

        try Self.answer(fixture, claimed, .completed, .sent, reply: "250 2.0.0 Ok: queued as A1", now: now)
        let sent = try #require(try Self.status(fixture, pass))
        #expect(sent.state == .sent && sent.sentCount == 1 && sent.sentAt == now && sent.reply == "250 2.0.0 Ok: queued as A1")
        #expect(try fixture.store.withSession(.read) { try $0.mail.mailOutboxCounts() }.pending == 0)

        let later = now.addingTimeInterval(60)
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueEmails(passIDs: [pass.id], now: later) } == [pass.id])
        let requeued = try #require(try Self.status(fixture, pass))
        #expect(requeued.state == .queued && requeued.sentAt == now && requeued.sentCount == 1)
    }

    @Test("tickets without an address, and cancelled ones, are never queued", arguments: Backend.allCases)
    func ineligible(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        let silent = try fixture.store.withSession(.write) {
            try $0.passes.insertPass(NewPass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: "NOMAIL", authenticationTokenHash: [1], downloadTokenHash: [2],
                eventID: event.id, attendeeName: "No Mail"
            ), now: now)
        }
        let cancelled = try fixture.makePass(serial: "GONE", eventID: event.id, now: now)
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "GONE", change: PassChange(status: .cancelled), now: now)
        }
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueEmails(passIDs: [silent.id, cancelled.id], now: now) }.isEmpty)
        let job = try fixture.store.withSession(.write) { try $0.jobs.createEmailJob(eventID: event.id, resend: true, now: now) }
        #expect(job.total == 0)
    }

    @Test("temporary failures keep the ticket queued with the reply; a permanent one fails it; a failed one is queued again", arguments: Backend.allCases)
    func failures(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let (_, passes) = try Self.event(fixture, tickets: 2, now: now)
        try fixture.store.withSession(.write) { _ = try $0.mail.enqueueEmails(passIDs: passes.map(\.id), now: now) }
        let claimed = try Self.claim(fixture, now: now)
        let byPass = Dictionary(uniqueKeysWithValues: claimed.map { ($0.passID, $0) })
        let retryAt = now.addingTimeInterval(30)
        try Self.answer(fixture, [try #require(byPass[passes[0].id])], .retry(nextAttempt: retryAt, status: 451, reason: "451 greylisted"), .retrying,
                        reply: "451 4.7.1 Greylisted", now: now)
        try Self.answer(fixture, [try #require(byPass[passes[1].id])], .failed(status: 550, reason: "550 5.1.1 unknown"), .failed,
                        reply: "550 5.1.1 <x>: User unknown", now: now)
        let retrying = try #require(try Self.status(fixture, passes[0]))
        #expect(retrying.state == .queued && retrying.reply == "451 4.7.1 Greylisted" && retrying.sentCount == 0)
        let failed = try #require(try Self.status(fixture, passes[1]))
        #expect(failed.state == .failed && failed.failedAt == now && failed.reply == "550 5.1.1 <x>: User unknown")
        #expect(try Self.claim(fixture, now: now).isEmpty, "the retry waits for its time")
        #expect(try Self.claim(fixture, now: retryAt).map(\.passID) == [passes[0].id])
        let counts = try fixture.store.withSession(.read) { try $0.mail.mailOutboxCounts() }
        #expect(counts.pending == 1 && counts.failed == 1 && counts.oldestPending == now)

        // The failed ticket is queued again (its row re-armed), for a ticket send and an event send alike.
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueEmails(passIDs: [passes[1].id], now: retryAt) } == [passes[1].id])
        #expect(try Self.status(fixture, passes[1])?.state == .queued)
        #expect(try Self.claim(fixture, now: retryAt).map(\.passID) == [passes[1].id])
    }

    @Test("an event send queues in batches from its cursor, skips what was sent unless resending, and counts", arguments: Backend.allCases)
    func eventSend(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let (event, passes) = try Self.event(fixture, tickets: 5, now: now)
        try fixture.store.withSession(.write) { _ = try $0.mail.enqueueEmails(passIDs: [passes[0].id], now: now) }
        try Self.answer(fixture, try Self.claim(fixture, now: now), .completed, .sent, reply: "250 ok", now: now)

        let job = try fixture.store.withSession(.write) { try $0.jobs.createEmailJob(eventID: event.id, resend: false, now: now) }
        #expect(job.kind == Job.emailKind && job.total == 4)
        var batch = try fixture.store.withSession(.write) { try $0.jobs.runEmailBatch(jobID: job.id, batchSize: 2, now: now) }
        #expect(batch.queued == 1 && batch.job.state == .running && batch.job.done == 1)
        batch = try fixture.store.withSession(.write) { try $0.jobs.runEmailBatch(jobID: job.id, batchSize: 2, now: now) }
        #expect(batch.queued == 2)
        batch = try fixture.store.withSession(.write) { try $0.jobs.runEmailBatch(jobID: job.id, batchSize: 2, now: now) }
        #expect(batch.queued == 1 && batch.job.state == .done && batch.job.total == 4 && batch.job.done == 4)
        #expect(try fixture.store.withSession(.read) { try $0.mail.emailCounts(jobID: job.id) } == EmailCounts(queued: 4))
        #expect(try fixture.store.withSession(.read) { try $0.mail.emailCounts(eventID: event.id) } == EmailCounts(queued: 4, sent: 1))

        // Nothing is left to send without resend; with it, every ticket not queued right now.
        let again = try fixture.store.withSession(.write) { try $0.jobs.createEmailJob(eventID: event.id, resend: false, now: now) }
        #expect(again.total == 0)
        let resend = try fixture.store.withSession(.write) { try $0.jobs.createEmailJob(eventID: event.id, resend: true, now: now) }
        #expect(resend.kind == Job.emailResendKind && resend.total == 1)
        let done = try fixture.store.withSession(.write) { try $0.jobs.runEmailBatch(jobID: resend.id, batchSize: 100, now: now) }
        #expect(done.queued == 1 && done.job.state == .done)
        let all = try fixture.store.withSession(.read) { try $0.mail.emailCounts(eventIDs: [event.id, "none"]) }
        #expect(all[event.id] == EmailCounts(queued: 5) && all["none"] == nil)
    }

    @Test("two claimers never get the same email", arguments: Backend.allCases)
    func disjointClaims(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let (_, passes) = try Self.event(fixture, tickets: 40, now: now)
        try fixture.store.withSession(.write) { _ = try $0.mail.enqueueEmails(passIDs: passes.map(\.id), now: now) }
        let other = try fixture.reopen()
        defer { other.close() }
        let claims = Mutex<[[Int64]]>([])
        try onThreads(4) { index in
            let store = index.isMultiple(of: 2) ? fixture.store : other
            for _ in 0..<5 {
                let rows = try store.withSession(.write) { try $0.mail.claimEmails(limit: 3, now: self.now, lease: .seconds(60)) }
                claims.withLock { $0.append(rows.map(\.passID)) }
            }
        }
        let all = claims.withLock { $0.flatMap { $0 } }
        #expect(all.count == 40 && Set(all).count == 40)
    }
}

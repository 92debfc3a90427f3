import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

/// The check-in and email counts of the event page, kept in the tallies by the triggers of
/// migration 13, against the same counts taken from the rows, on both backends.
@Suite("Check-in and email tallies", .offCooperativePool)
struct EventPageTallyTests {
    static let passType = StoreFixture.passType

    /// The kept tally and the recount agree, folded or not, and the readers the pages use say the same.
    static func expectCounts(
        _ fixture: StoreFixture, event: String, _ step: String, checkedIn: Int, emails: EmailCounts,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try ReachTests.expectTallyMatches(fixture, event: event, step + " (changes not folded)", sourceLocation: sourceLocation)
        let (checkIns, emailCounts) = try fixture.store.withSession(.read) { session in
            (try session.checkIns.checkInCounts(eventIDs: [event])[event] ?? 0, try session.mail.emailCounts(eventID: event))
        }
        #expect(checkIns == checkedIn, "check-ins after \(step)", sourceLocation: sourceLocation)
        #expect(emailCounts == emails, "emails after \(step)", sourceLocation: sourceLocation)
        try fixture.store.withSession(.write) { _ = try $0.reach.foldTallyChanges() }
        try ReachTests.expectTallyMatches(fixture, event: event, step + " (folded)", sourceLocation: sourceLocation)
        let total = try fixture.store.withSession(.read) { try $0.reach.eventTally(eventID: event) }.total
        #expect(total.checkedIn == Int64(checkedIn), "folded check-ins after \(step)", sourceLocation: sourceLocation)
    }

    @Test("check-ins, undos, cancellations, imports and emails keep the tallies equal to a count", arguments: Backend.allCases)
    func tallyFollowsEveryChange(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let event = try fixture.makeEvent()
        let other = try fixture.makeEvent()
        var passes: [StoredPass] = []
        for index in 0..<6 { passes.append(try fixture.makePass(serial: "T\(index)", eventID: event.id)) }
        let imported = (0..<4).map { index in
            NewPass(
                passTypeIdentifier: Self.passType, serialNumber: "I\(index)", authenticationTokenHash: Array("ai\(index)".utf8),
                downloadTokenHash: Array("di\(index)".utf8), attendeeName: "Imported \(index)", attendeeEmail: "i\(index)@example.com"
            )
        }
        _ = try fixture.store.withSession(.write) { try $0.passes.importPasses(imported, eventID: event.id, now: now) }
        let otherPass = try fixture.makePass(serial: "O1", eventID: other.id)
        try Self.expectCounts(fixture, event: event.id, "issuing and importing", checkedIn: 0, emails: EmailCounts())

        func checkIn(_ serial: SerialNumber, at offset: TimeInterval = 0) throws -> CheckInOutcome {
            try fixture.store.withSession(.write) {
                try $0.checkIns.checkIn(Scan(passTypeIdentifier: Self.passType, serialNumber: serial, scannedAt: now.addingTimeInterval(offset)), now: now)
            }
        }
        for serial: SerialNumber in ["T0", "T1", "T2", "I0", "O1"] { _ = try checkIn(serial) }
        _ = try checkIn("T1")
        _ = try checkIn("T2", at: -60)
        try Self.expectCounts(fixture, event: event.id, "check-ins, a repeated scan and an earlier one", checkedIn: 4, emails: EmailCounts())

        _ = try fixture.store.withSession(.write) { try $0.checkIns.undoCheckIn(passTypeIdentifier: Self.passType, serialNumber: "T0", undoneBy: "test", now: now) }
        _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: Self.passType, serialNumber: "T1", change: PassChange(status: .cancelled), now: now) }
        _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: Self.passType, serialNumber: "T3", change: PassChange(status: .cancelled), now: now) }
        if case .cancelled = try checkIn("T3") {} else { Issue.record("a cancelled ticket was checked in") }
        try Self.expectCounts(fixture, event: event.id, "an undo, cancelling a checked-in ticket and another", checkedIn: 2, emails: EmailCounts())

        let queued = try fixture.store.withSession(.write) { try $0.mail.enqueueEmails(passIDs: passes.map(\.id) + [otherPass.id], now: now) }
        #expect(queued.count == 5, "the active tickets of both events (T1 and T3 are cancelled)")
        try Self.expectCounts(fixture, event: event.id, "queueing emails", checkedIn: 2, emails: EmailCounts(queued: 4))

        let claimed = try MailOutboxTests.claim(fixture, now: now, limit: 10)
        let ours = claimed.filter { $0.passID != otherPass.id }.sorted { $0.passID < $1.passID }
        #expect(ours.count == 4)
        try MailOutboxTests.answer(fixture, Array(ours[0...1]), .completed, .sent, reply: "250 ok", now: now)
        try MailOutboxTests.answer(fixture, [ours[2]], .failed(status: 550, reason: "550 no such user"), .failed, reply: "550 no such user", now: now)
        try MailOutboxTests.answer(
            fixture, [ours[3]], .retry(nextAttempt: now.addingTimeInterval(60), status: 451, reason: "451 later"), .retrying, reply: "451 later", now: now
        )
        try Self.expectCounts(fixture, event: event.id, "sending, failing and retrying", checkedIn: 2, emails: EmailCounts(queued: 1, sent: 2, failed: 1))

        _ = try fixture.store.withSession(.write) { try $0.mail.enqueueEmails(passIDs: [ours[0].passID, ours[2].passID], now: now) }
        try Self.expectCounts(fixture, event: event.id, "queueing a sent and a failed email again", checkedIn: 2, emails: EmailCounts(queued: 3, sent: 1))

        let otherCounts = try fixture.store.withSession(.read) { session in
            (try session.checkIns.checkInCounts(eventIDs: [other.id])[other.id], try session.mail.emailCounts(eventID: other.id))
        }
        #expect(otherCounts.0 == 1 && otherCounts.1 == EmailCounts(queued: 1), "the other event keeps its own counts")
    }
}

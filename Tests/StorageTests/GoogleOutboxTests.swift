import Foundation
import PassIdentifiers
import PassServerTesting
import Testing

@testable import Storage

/// The Google Wallet outbox on both backends: nothing is written while Google Wallet is off; with
/// it on, issuing enqueues the ticket's object and its event's class, ticket changes enqueue the
/// object (notifying for a cancellation or a new seat, silent for a rename or a check-in), an
/// event edit enqueues its class once whatever its size, re-push touches enqueue nothing, and what
/// Google answered is kept per ticket with the notifications of the last 24 hours.
@Suite("Google Wallet outbox", .offCooperativePool, .timeLimit(.minutes(3)))
struct GoogleOutboxTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func claim(_ fixture: StoreFixture, now: Date) throws -> [GoogleOutboxRow] {
        try fixture.store.withSession(.write) { try $0.google.claimGoogle(limit: 1_000, now: now, lease: .seconds(60)) }
    }

    /// Settles `rows` as sent and records them as synced, as the channel does.
    static func complete(_ fixture: StoreFixture, _ rows: [GoogleOutboxRow], now: Date) throws {
        try fixture.store.transaction { session in
            try session.outbox.settleOutbox(
                OutboxSettlement(entries: rows.map { .init(id: $0.id, generation: $0.generation, change: .completed) }), in: .google, now: now
            )
            try session.google.recordGoogle(rows.map { GoogleResult(target: $0.target, kind: .synced(state: "ACTIVE", notified: $0.notify)) }, now: now)
        }
    }

    static func enable(_ fixture: StoreFixture, _ enabled: Bool = true) throws {
        try fixture.store.withSession(.write) { try $0.google.setGoogleWallet(enabled: enabled) }
    }

    @Test("off: issuing, changing and editing write nothing; on: the same writes the rows", arguments: Backend.allCases)
    func offWritesNothing(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        let pass = try fixture.makePass(serial: "G0", eventID: event.id, now: now)
        _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "G0", change: PassChange(attendeeName: "Bo"), now: now) }
        _ = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(venue: "Arena"), now: now) }
        #expect(try Self.claim(fixture, now: now).isEmpty)
        #expect(try fixture.store.withSession(.read) { try $0.google.googleWalletEnabled() } == false)

        try Self.enable(fixture)
        _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "G0", change: PassChange(attendeeName: "Cy"), now: now) }
        let rows = try Self.claim(fixture, now: now)
        #expect(rows.map(\.target) == [.object(passID: pass.id)])
        #expect(rows.first?.ticket?.attendeeName == "Cy" && rows.first?.event?.id == event.id && rows.first?.notify == false)
    }

    @Test("issuing enqueues the object and the class it needs; the class only until Google holds it", arguments: Backend.allCases)
    func issuing(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try Self.enable(fixture)
        let event = try fixture.makeEvent(now: now)
        let first = try fixture.makePass(serial: "G1", eventID: event.id, now: now)
        let imported = try fixture.store.withSession(.write) { session in
            try session.passes.importPasses((2..<5).map { index in
                NewPass(
                    passTypeIdentifier: StoreFixture.passType, serialNumber: SerialNumber(trusted: "G\(index)"),
                    authenticationTokenHash: Array("a\(index)".utf8), downloadTokenHash: Array("d\(index)".utf8),
                    eventID: event.id, attendeeName: "Guest \(index)", externalID: "x\(index)"
                )
            }, eventID: event.id, now: now)
        }
        #expect(imported.count == 3)
        let rows = try Self.claim(fixture, now: now)
        let objects = rows.filter { if case .object = $0.target { true } else { false } }
        #expect(rows.first?.target == .eventClass(eventID: event.id), "the class is claimed first: \(rows.map(\.target))")
        #expect(rows.filter { $0.target == .eventClass(eventID: event.id) }.count == 1)
        #expect(objects.count == 4 && objects.first?.target == .object(passID: first.id))
        #expect(objects.allSatisfy { $0.inserted == false && $0.ticket != nil && $0.event?.id == event.id })

        try Self.complete(fixture, rows, now: now)
        #expect(try Self.claim(fixture, now: now).isEmpty)
        // Google holds the class now: another ticket enqueues its object alone.
        let late = try fixture.makePass(serial: "G9", eventID: event.id, now: now)
        #expect(try Self.claim(fixture, now: now).map(\.target) == [.object(passID: late.id)])
        let records = try fixture.store.withSession(.read) { try $0.google.googleObjects(passIDs: [first.id]) }
        #expect(records.first?.insertedAt == now && records.first?.state == "ACTIVE")
    }

    @Test("a cancellation or a new seat notifies; a rename or a check-in is silent; a touch enqueues nothing", arguments: Backend.allCases)
    func ticketChanges(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        let pass = try fixture.makePass(serial: "G1", eventID: event.id, now: now)
        try Self.enable(fixture)
        func change(_ change: PassChange) throws -> [GoogleOutboxRow] {
            _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "G1", change: change, now: now) }
            let rows = try Self.claim(fixture, now: now)
            try Self.complete(fixture, rows, now: now)
            return rows
        }
        #expect(try change(PassChange(touch: true)).isEmpty, "a re-push touch")
        #expect(try change(PassChange(attendeeName: "Bo")).map(\.notify) == [false])
        #expect(try change(PassChange(seat: .some("B7"))).map(\.notify) == [true])
        _ = try fixture.store.withSession(.write) {
            try $0.checkIns.checkIn(Scan(passTypeIdentifier: StoreFixture.passType, serialNumber: "G1", scannedAt: now), now: now)
        }
        let checkedIn = try Self.claim(fixture, now: now)
        #expect(checkedIn.map(\.notify) == [false] && checkedIn.first?.ticket?.checkedInAt != nil)
        try Self.complete(fixture, checkedIn, now: now)
        #expect(try change(PassChange(status: .cancelled)).map(\.notify) == [true])
        // Two notifying updates were recorded for the ticket (the seat and the cancellation).
        let record = try #require(try fixture.store.withSession(.read) { try $0.google.googleObjects(passIDs: [pass.id]) }.first)
        #expect(record.notifiedAt.count == 2)
        _ = try change(PassChange(seat: .some("C1")))
        let later = now.addingTimeInterval(30)
        _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "G1", change: PassChange(seat: .some("C2")), now: later) }
        #expect(try Self.claim(fixture, now: later).first?.recentNotifications.count == 3, "the claim carries the last 24 hours' notifications")
        // A day later they have aged out.
        let dayLater = now.addingTimeInterval(86_401)
        _ = try fixture.store.withSession(.write) { try $0.execute("UPDATE google_outbox SET claimed_until = NULL") }
        #expect(try Self.claim(fixture, now: dayLater).first?.recentNotifications.isEmpty == true)
    }

    @Test("an event edit enqueues its class once for any number of tickets; a new place or time notifies", arguments: Backend.allCases)
    func eventEdits(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try Self.enable(fixture)
        let event = try fixture.makeEvent(now: now)
        for index in 0..<20 { try fixture.makePass(serial: SerialNumber(trusted: "E\(index)"), eventID: event.id, now: now) }
        try Self.complete(fixture, try Self.claim(fixture, now: now), now: now)

        _ = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(name: "Concert II"), now: now) }
        _ = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(name: "Concert III"), now: now) }
        let renamed = try Self.claim(fixture, now: now)
        #expect(renamed.map(\.target) == [.eventClass(eventID: event.id)], "two edits coalesce into one class row")
        #expect(renamed.first?.notify == false && renamed.first?.event?.name == "Concert III" && renamed.first?.inserted == true)
        #expect(renamed.first?.generation == 2)
        try Self.complete(fixture, renamed, now: now)

        _ = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(venue: "Arena"), now: now) }
        #expect(try Self.claim(fixture, now: now).map(\.notify) == [true])
    }

    @Test("a failed row is re-armed by the next change; counts show pending and failed", arguments: Backend.allCases)
    func failures(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try Self.enable(fixture)
        let event = try fixture.makeEvent(now: now)
        let pass = try fixture.makePass(serial: "F1", eventID: event.id, now: now)
        let rows = try Self.claim(fixture, now: now)
        #expect(try fixture.store.withSession(.read) { try $0.google.googleOutboxCounts() } == (pending: 2, failed: 0))
        try fixture.store.transaction { session in
            try session.outbox.settleOutbox(
                OutboxSettlement(entries: rows.map { .init(id: $0.id, generation: $0.generation, change: .failed(status: 400, reason: "INVALID_ARGUMENT")) }),
                in: .google, now: now
            )
            try session.google.recordGoogle(rows.map { GoogleResult(target: $0.target, kind: .failed(reason: "INVALID_ARGUMENT: bad")) }, now: now)
        }
        #expect(try fixture.store.withSession(.read) { try $0.google.googleOutboxCounts() } == (pending: 0, failed: 2))
        #expect(try fixture.store.withSession(.read) { try $0.google.googleObjects(passIDs: [pass.id]) }.first?.failedReason == "INVALID_ARGUMENT: bad")
        #expect(try Self.claim(fixture, now: now).isEmpty)
        _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "F1", change: PassChange(attendeeName: "Dee"), now: now) }
        #expect(try Self.claim(fixture, now: now).map(\.target) == [.object(passID: pass.id)])
    }
}

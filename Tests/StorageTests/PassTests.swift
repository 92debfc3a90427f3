import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@Suite("Passes", .offCooperativePool)
struct PassTests {
    @Test(arguments: Backend.allCases)
    func insertAndRead(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let created = try fixture.makePass(serial: "S-1", eventID: event.id)
        #expect(created.status == .active)
        #expect(created.revision > 0)
        let bySerial = try #require(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "S-1") })
        #expect(bySerial == created)
        let byToken = try #require(try fixture.store.withSession(.read) { try $0.passes.pass(downloadTokenHash: Array("download-S-1".utf8)) })
        #expect(byToken.id == created.id)
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "nope") } == nil)
        #expect(storageCode { try fixture.makePass(serial: "S-1") } == .conflict)
        #expect(storageCode { try fixture.makePass(serial: "S-2", eventID: "missing-event") } == .notFound)
    }

    @Test(arguments: Backend.allCases)
    func pagesByEvent(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        for index in 0..<5 { try fixture.makePass(serial: "P\(index)", eventID: event.id) }
        try fixture.makePass(serial: "other")
        let first = try fixture.store.withSession(.read) { try $0.passes.passes(eventID: event.id, limit: 3) }
        #expect(first.map(\.serialNumber) == ["P0", "P1", "P2"])
        let rest = try fixture.store.withSession(.read) { try $0.passes.passes(eventID: event.id, after: try #require(first.last).id, limit: 3) }
        #expect(rest.map(\.serialNumber) == ["P3", "P4"])
    }

    @Test(arguments: Backend.allCases)
    func updateBumpsRevisionAndEnqueues(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let pass = try fixture.makePass(serial: "U1", now: now)
        _ = try fixture.register(device: "dev-a", token: .fixture("tok-a"), serial: "U1")
        _ = try fixture.register(device: "dev-b", token: .fixture("tok-b"), serial: "U1")
        let update = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: "U1",
                change: PassChange(attendeeName: "Grace", seat: .some(nil), status: .cancelled, cancellationReason: "refund"), now: now
            )
        }
        guard case .updated(let updated, let enqueued) = update else {
            Issue.record("expected an update")
            return
        }
        #expect(enqueued == 2)
        #expect(updated.attendeeName == "Grace")
        #expect(updated.seat == nil)
        #expect(updated.status == .cancelled)
        #expect(updated.cancellationReason == "refund")
        #expect(updated.revision > pass.revision)
        #expect(updated.modifiedAt > pass.modifiedAt)
        #expect(try fixture.store.withSession(.read) { try $0.outbox.outboxCounts(now: now) }.pending == 2)

        let again = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: "U1", change: PassChange(attendeeName: "Grace"), now: now
            )
        }
        #expect(again == .unchanged(updated))
        let touched = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: "U1", change: PassChange(touch: true), now: now
            )
        }
        #expect(touched.pass.revision > updated.revision)
        #expect(storageCode {
            _ = try fixture.store.withSession(.write) {
                try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "none", change: PassChange(touch: true), now: now)
            }
        } == .notFound)
    }

    @Test(arguments: Backend.allCases)
    func modifiedAtStrictlyIncreasesWithinOneSecond(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date(timeIntervalSince1970: 1_800_000_000.25)
        let pass = try fixture.makePass(serial: "M1", now: now)
        var previous = pass.modifiedAt
        for step in 0..<3 {
            let update = try fixture.store.withSession(.write) {
                try $0.passes.updatePass(
                    passTypeIdentifier: StoreFixture.passType, serialNumber: "M1",
                    change: PassChange(attendeeName: "Name \(step)"), now: now.addingTimeInterval(0.1 * Double(step))
                )
            }
            #expect(update.pass.modifiedAt > previous)
            previous = update.pass.modifiedAt
        }
        // Once the clock passes the bumped value, modified_at follows the clock again.
        let later = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: "M1", change: PassChange(touch: true), now: now.addingTimeInterval(100)
            )
        }
        #expect(later.pass.modifiedAt == 1_800_000_100)
    }

    @Test(arguments: Backend.allCases)
    func transactionRollsBackEverything(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try fixture.store.transaction { session in
                _ = try session.passes.insertPass(NewPass(
                    passTypeIdentifier: StoreFixture.passType, serialNumber: "T1", authenticationTokenHash: [1],
                    downloadTokenHash: [2], attendeeName: "x"
                ), now: Date())
                throw Abort()
            }
        }
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "T1") } == nil)
        let count = try fixture.store.transaction { session in
            _ = try session.passes.insertPass(NewPass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: "T2", authenticationTokenHash: [1],
                downloadTokenHash: [3], attendeeName: "x"
            ), now: Date())
            return try session.registrations.registrationCount(passTypeIdentifier: StoreFixture.passType, serialNumber: "T2")
        }
        #expect(count == 0)
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "T2") } != nil)
        try fixture.store.ping()
    }
}

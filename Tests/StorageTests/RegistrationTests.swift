import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@Suite("Registrations", .offCooperativePool)
struct RegistrationTests {
    @Test(arguments: Backend.allCases)
    func upsertIsIdempotentAndUpdatesPushToken(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makePass(serial: "R1")
        #expect(try fixture.register(device: "d1", token: .fixture("t1"), serial: "R1") == .created)
        #expect(try fixture.register(device: "d1", token: .fixture("t1"), serial: "R1") == .updated)
        #expect(try fixture.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: StoreFixture.passType, serialNumber: "R1") } == 1)
        #expect(try fixture.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: StoreFixture.passType, serialNumber: "R1") } == [.fixture("t1")])
        #expect(try fixture.register(device: "d1", token: .fixture("t2"), serial: "R1") == .updated)
        #expect(try fixture.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: StoreFixture.passType, serialNumber: "R1") } == [.fixture("t2")])
        #expect(try fixture.store.withSession(.read) { try $0.registrations.serials(deviceLibraryIdentifier: "d1", passTypeIdentifier: StoreFixture.passType, updatedAfter: nil) }.serialNumbers == ["R1"])
        #expect(storageCode { _ = try fixture.register(device: "d1", token: .fixture("t2"), serial: "missing") } == .notFound)
    }

    @Test(arguments: Backend.allCases)
    func deleteMissingIsNotAnError(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makePass(serial: "R2")
        #expect(try fixture.store.withSession(.write) { try $0.registrations.deleteRegistration(deviceLibraryIdentifier: "nobody", passTypeIdentifier: StoreFixture.passType, serialNumber: "R2") } == false)
        _ = try fixture.register(device: "d2", token: .fixture("t"), serial: "R2")
        #expect(try fixture.store.withSession(.write) { try $0.registrations.deleteRegistration(deviceLibraryIdentifier: "d2", passTypeIdentifier: StoreFixture.passType, serialNumber: "R2") })
        #expect(try fixture.store.withSession(.write) { try $0.registrations.deleteRegistration(deviceLibraryIdentifier: "d2", passTypeIdentifier: StoreFixture.passType, serialNumber: "R2") } == false)
        #expect(try fixture.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: StoreFixture.passType, serialNumber: "R2") } == 0)
    }

    @Test(arguments: Backend.allCases)
    func changedSerialsSinceRevision(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let a = try fixture.makePass(serial: "A")
        let b = try fixture.makePass(serial: "B")
        try fixture.makePass(serial: "C") // not registered
        _ = try fixture.register(device: "dev", token: .fixture("tok"), serial: "A")
        _ = try fixture.register(device: "dev", token: .fixture("tok"), serial: "B")
        let all = try fixture.store.withSession(.read) { try $0.registrations.serials(deviceLibraryIdentifier: "dev", passTypeIdentifier: StoreFixture.passType, updatedAfter: nil) }
        #expect(all.serialNumbers == ["A", "B"])
        #expect(all.lastRevision == max(a.revision, b.revision))
        let none = try fixture.store.withSession(.read) {
            try $0.registrations.serials(deviceLibraryIdentifier: "dev", passTypeIdentifier: StoreFixture.passType, updatedAfter: all.lastRevision)
        }
        #expect(none.serialNumbers.isEmpty)
        #expect(none.lastRevision == nil)
        let update = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "A", change: PassChange(touch: true), now: now)
        }
        let changed = try fixture.store.withSession(.read) {
            try $0.registrations.serials(deviceLibraryIdentifier: "dev", passTypeIdentifier: StoreFixture.passType, updatedAfter: all.lastRevision)
        }
        #expect(changed.serialNumbers == ["A"])
        #expect(changed.lastRevision == update.pass.revision)
        let otherType = try fixture.store.withSession(.read) { try $0.registrations.serials(deviceLibraryIdentifier: "dev", passTypeIdentifier: "pass.other", updatedAfter: nil) }
        #expect(otherType.serialNumbers.isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func pruneRespectsTimestamp(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let early = Date(timeIntervalSince1970: 1_800_000_000)
        let late = early.addingTimeInterval(60)
        try fixture.makePass(serial: "P1")
        try fixture.makePass(serial: "P2")
        _ = try fixture.register(device: "d1", token: .fixture("gone"), serial: "P1", now: early)
        _ = try fixture.register(device: "d1", token: .fixture("gone"), serial: "P2", now: late)
        // APNs says the token went invalid between the two registrations: only the older goes.
        let pruned = try fixture.store.withSession(.write) {
            try $0.registrations.pruneRegistrations(pushToken: .fixture("gone"), passTypeIdentifier: StoreFixture.passType, unlessUpdatedAfter: early.addingTimeInterval(30))
        }
        #expect(pruned == 1)
        #expect(try fixture.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: StoreFixture.passType, serialNumber: "P2") } == [.fixture("gone")])
        #expect(try fixture.store.withSession(.write) { try $0.registrations.pruneRegistrations(pushToken: .fixture("gone"), passTypeIdentifier: StoreFixture.passType, unlessUpdatedAfter: nil) } == 1)
        #expect(try fixture.store.withSession(.read) { try $0.registrations.serials(deviceLibraryIdentifier: "d1", passTypeIdentifier: StoreFixture.passType, updatedAfter: nil) }.serialNumbers.isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func pruneRecordsEachDeletedRegistrationOnItsPass(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try fixture.makePass(serial: "P1")
        try fixture.makePass(serial: "P2")
        _ = try fixture.register(device: "d1", token: .fixture("foreign"), serial: "P1", now: now)
        _ = try fixture.register(device: "d2", token: .fixture("foreign"), serial: "P1", now: now)
        _ = try fixture.register(device: "d1", token: .fixture("foreign"), serial: "P2", now: now)
        _ = try fixture.register(device: "d3", token: .fixture("healthy"), serial: "P1", now: now)
        let prune = RegistrationPrune(tokenHash: "hash-of-foreign", status: 400, reason: "DeviceTokenNotForTopic", prunedAt: now.addingTimeInterval(5))
        let deleted = try fixture.store.withSession(.write) { session in
            try session.registrations.pruneRegistrations(pushToken: .fixture("foreign"), passTypeIdentifier: StoreFixture.passType, unlessUpdatedAfter: nil, record: prune)
        }
        #expect(deleted == 3)
        let (first, second) = try fixture.store.withSession(.read) { session in
            (try session.registrations.recentPrunes(passTypeIdentifier: StoreFixture.passType, serialNumber: "P1"),
             try session.registrations.recentPrunes(passTypeIdentifier: StoreFixture.passType, serialNumber: "P2"))
        }
        #expect(first == [prune, prune], "one entry per deleted registration (two devices held the token)")
        #expect(second == [prune])
        #expect(try fixture.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: StoreFixture.passType, serialNumber: "P1") } == [.fixture("healthy")])
    }

    @Test(arguments: Backend.allCases)
    func prunesKeptPerPassAreBoundedNewestFirst(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try fixture.makePass(serial: "P1")
        let total = RegistrationPrune.keptPerPass + 5
        for index in 0..<total {
            _ = try fixture.register(device: "d\(index)", token: .fixture("t\(index)"), serial: "P1", now: start)
            _ = try fixture.store.withSession(.write) { session in
                try session.registrations.pruneRegistrations(
                    pushToken: .fixture("t\(index)"), passTypeIdentifier: StoreFixture.passType, unlessUpdatedAfter: nil,
                    record: RegistrationPrune(tokenHash: "h\(index)", status: 410, reason: "Unregistered", prunedAt: start.addingTimeInterval(Double(index)))
                )
            }
        }
        let kept = try fixture.store.withSession(.read) { try $0.registrations.recentPrunes(passTypeIdentifier: StoreFixture.passType, serialNumber: "P1", limit: 100) }
        #expect(kept.count == RegistrationPrune.keptPerPass)
        #expect(kept.map(\.tokenHash) == (5..<total).reversed().map { "h\($0)" })
        // When a 410 timestamp spares the registration, nothing is recorded.
        _ = try fixture.register(device: "dx", token: .fixture("tx"), serial: "P1", now: start.addingTimeInterval(100))
        let spared = try fixture.store.withSession(.write) { session in
            try session.registrations.pruneRegistrations(
                pushToken: .fixture("tx"), passTypeIdentifier: StoreFixture.passType, unlessUpdatedAfter: start.addingTimeInterval(50),
                record: RegistrationPrune(tokenHash: "hx", status: 410, reason: "Unregistered", prunedAt: start.addingTimeInterval(200))
            )
        }
        #expect(spared == 0)
        #expect(try fixture.store.withSession(.read) { try $0.registrations.recentPrunes(passTypeIdentifier: StoreFixture.passType, serialNumber: "P1") }.first?.tokenHash == "h\(total - 1)")
    }
}

import Foundation
import Storage
import Testing

@Suite("Registrations")
struct RegistrationTests {
    @Test(arguments: Backend.allCases)
    func upsertIsIdempotentAndUpdatesPushToken(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makePass(serial: "R1")
        #expect(try fixture.register(device: "d1", token: "t1", serial: "R1") == .created)
        #expect(try fixture.register(device: "d1", token: "t1", serial: "R1") == .updated)
        #expect(try fixture.store.registrationCount(passTypeIdentifier: StoreFixture.passType, serialNumber: "R1") == 1)
        #expect(try fixture.store.pushTokens(passTypeIdentifier: StoreFixture.passType, serialNumber: "R1") == ["t1"])
        #expect(try fixture.register(device: "d1", token: "t2", serial: "R1") == .updated)
        #expect(try fixture.store.pushTokens(passTypeIdentifier: StoreFixture.passType, serialNumber: "R1") == ["t2"])
        #expect(try fixture.store.serials(deviceLibraryIdentifier: "d1", passTypeIdentifier: StoreFixture.passType, updatedAfter: nil).serialNumbers == ["R1"])
        #expect(storageCode { _ = try fixture.register(device: "d1", token: "t2", serial: "missing") } == .notFound)
    }

    @Test(arguments: Backend.allCases)
    func deleteMissingIsNotAnError(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makePass(serial: "R2")
        #expect(try fixture.store.deleteRegistration(deviceLibraryIdentifier: "nobody", passTypeIdentifier: StoreFixture.passType, serialNumber: "R2") == false)
        _ = try fixture.register(device: "d2", token: "t", serial: "R2")
        #expect(try fixture.store.deleteRegistration(deviceLibraryIdentifier: "d2", passTypeIdentifier: StoreFixture.passType, serialNumber: "R2"))
        #expect(try fixture.store.deleteRegistration(deviceLibraryIdentifier: "d2", passTypeIdentifier: StoreFixture.passType, serialNumber: "R2") == false)
        #expect(try fixture.store.registrationCount(passTypeIdentifier: StoreFixture.passType, serialNumber: "R2") == 0)
    }

    @Test(arguments: Backend.allCases)
    func changedSerialsSinceRevision(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let a = try fixture.makePass(serial: "A")
        let b = try fixture.makePass(serial: "B")
        try fixture.makePass(serial: "C") // not registered
        _ = try fixture.register(device: "dev", token: "tok", serial: "A")
        _ = try fixture.register(device: "dev", token: "tok", serial: "B")
        let all = try fixture.store.serials(deviceLibraryIdentifier: "dev", passTypeIdentifier: StoreFixture.passType, updatedAfter: nil)
        #expect(all.serialNumbers == ["A", "B"])
        #expect(all.lastRevision == max(a.revision, b.revision))
        let none = try fixture.store.serials(deviceLibraryIdentifier: "dev", passTypeIdentifier: StoreFixture.passType, updatedAfter: all.lastRevision)
        #expect(none.serialNumbers.isEmpty)
        #expect(none.lastRevision == nil)
        let update = try fixture.store.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "A", change: PassChange(touch: true), now: now)
        let changed = try fixture.store.serials(deviceLibraryIdentifier: "dev", passTypeIdentifier: StoreFixture.passType, updatedAfter: all.lastRevision)
        #expect(changed.serialNumbers == ["A"])
        #expect(changed.lastRevision == update.pass.revision)
        let otherType = try fixture.store.serials(deviceLibraryIdentifier: "dev", passTypeIdentifier: "pass.other", updatedAfter: nil)
        #expect(otherType.serialNumbers.isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func pruneRespectsTimestamp(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let early = Date(timeIntervalSince1970: 1_800_000_000)
        let late = early.addingTimeInterval(60)
        try fixture.makePass(serial: "P1")
        try fixture.makePass(serial: "P2")
        _ = try fixture.register(device: "d1", token: "gone", serial: "P1", now: early)
        _ = try fixture.register(device: "d1", token: "gone", serial: "P2", now: late)
        // APNs says the token went invalid between the two registrations: only the older goes.
        let pruned = try fixture.store.pruneRegistrations(pushToken: "gone", passTypeIdentifier: StoreFixture.passType, unlessUpdatedAfter: early.addingTimeInterval(30))
        #expect(pruned == 1)
        #expect(try fixture.store.pushTokens(passTypeIdentifier: StoreFixture.passType, serialNumber: "P2") == ["gone"])
        #expect(try fixture.store.pruneRegistrations(pushToken: "gone", passTypeIdentifier: StoreFixture.passType, unlessUpdatedAfter: nil) == 1)
        #expect(try fixture.store.serials(deviceLibraryIdentifier: "d1", passTypeIdentifier: StoreFixture.passType, updatedAfter: nil).serialNumbers.isEmpty)
    }
}

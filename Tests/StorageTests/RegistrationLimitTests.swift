import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

/// `upsertRegistration(keepingAtMost:)`: a pass keeps a bounded number of registrations; a new
/// device replaces the one updated least recently.
@Suite("Registrations per pass", .offCooperativePool, .timeLimit(.minutes(3)))
struct RegistrationLimitTests {
    private func register(_ fixture: StoreFixture, device: DeviceLibraryIdentifier, serial: SerialNumber, at seconds: Double, limit: Int = 10) throws -> RegistrationResult {
        try fixture.store.withSession(.write) { session in
            try session.registrations.upsertRegistration(
                deviceLibraryIdentifier: device, pushToken: .fixture("token-\(device)"), passTypeIdentifier: StoreFixture.passType,
                serialNumber: serial, now: Date(timeIntervalSince1970: 1_800_000_000 + seconds), keepingAtMost: limit
            )
        }
    }

    private func devices(_ fixture: StoreFixture, serial: String) throws -> Set<String> {
        Set(try fixture.store.execute("""
            SELECT device_library_identifier FROM registrations
            WHERE pass_type_identifier = \(StoreFixture.passType) AND serial_number = \(serial)
            """).map { try $0.string("device_library_identifier") })
    }

    @Test("the 11th device replaces the registration updated least recently", arguments: Backend.allCases)
    func eleventhDeviceEvictsLeastRecentlyUpdated(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makePass(serial: "CAP")
        try fixture.makePass(serial: "OTHER")
        for index in 0..<10 {
            #expect(try register(fixture, device: "d\(index)", serial: "CAP", at: Double(index)) == .created)
        }
        // d0 registers again (updated most recently now); d1 is the least recently updated. d2
        // also holds another pass, so its device row must survive its eviction from CAP.
        #expect(try register(fixture, device: "d0", serial: "CAP", at: 100) == .updated)
        _ = try register(fixture, device: "d2", serial: "OTHER", at: 101)
        #expect(try devices(fixture, serial: "CAP").count == 10, "ten fit without eviction")

        #expect(try register(fixture, device: "d10", serial: "CAP", at: 200) == .created)
        var expected = Set((0..<11).map { "d\($0)" })
        expected.remove("d1")
        #expect(try devices(fixture, serial: "CAP") == expected)
        #expect(try fixture.store.execute("SELECT 1 AS one FROM registrations WHERE device_library_identifier = 'd1'").isEmpty)
        #expect(try fixture.store.execute("SELECT 1 AS one FROM devices WHERE device_library_identifier = 'd1'").isEmpty,
                "a device left with no registration is forgotten")

        #expect(try register(fixture, device: "d11", serial: "CAP", at: 300) == .created)
        expected.remove("d2")
        expected.insert("d11")
        #expect(try devices(fixture, serial: "CAP") == expected)
        #expect(try devices(fixture, serial: "OTHER") == ["d2"], "other passes keep their registrations")
        #expect(try fixture.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: StoreFixture.passType, serialNumber: "OTHER") } == [.fixture("token-d2")])
        #expect(try fixture.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: StoreFixture.passType, serialNumber: "CAP") }.count == 10)
    }

    @Test("a lowered limit trims on the next registration; an unknown pass is notFound", arguments: Backend.allCases)
    func lowerLimitAndUnknownPass(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makePass(serial: "LOW")
        for index in 0..<5 { _ = try register(fixture, device: "l\(index)", serial: "LOW", at: Double(index)) }
        #expect(try register(fixture, device: "l4", serial: "LOW", at: 10, limit: 2) == .updated)
        #expect(try devices(fixture, serial: "LOW") == ["l3", "l4"])
        #expect(try register(fixture, device: "solo", serial: "LOW", at: 20, limit: 1) == .created)
        #expect(try devices(fixture, serial: "LOW") == ["solo"])
        #expect(storageCode { _ = try register(fixture, device: "x", serial: "missing", at: 30) } == .notFound)
    }

    @Test("concurrent registrations of one pass never leave more than the limit")
    func concurrentRegistrationsStayBounded() throws {
        let fixture = try StoreFixture(.postgres, options: StoreOptions(poolSize: 16))
        try fixture.makePass(serial: "RACE")
        // Rounds of 16 devices at once, each round after the pass is already full.
        for round in 0..<4 {
            try onThreads(16) { index in
                _ = try register(fixture, device: "r\(round)-\(index)", serial: "RACE", at: Double(round * 100 + index), limit: 10)
            }
            let count = try fixture.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: StoreFixture.passType, serialNumber: "RACE") }
            #expect(count == 10, "round \(round): \(count) registrations")
        }
        let survivors = try devices(fixture, serial: "RACE")
        #expect(survivors.allSatisfy { $0.hasPrefix("r3-") }, "the last round's devices are the most recent: \(survivors.sorted())")
    }
}

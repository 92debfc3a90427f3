import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@Suite("Hostile input", .offCooperativePool)
struct HostileInputTests {
    static let strings = [
        "O'Brien \"quoted\" \\ backslash",
        "'; DROP TABLE passes; --",
        "Robert'); DELETE FROM registrations; --",
        "🎟️ Zoë — 東京 ✓",
        "$1 ?1 :name @p",
        String(repeating: "x", count: 10_240),
    ]

    @Test(arguments: Backend.allCases)
    func hostileStringsRoundTrip(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        for (index, text) in Self.strings.enumerated() {
            // Identifiers as the store takes them, unchecked: binding alone keeps them from the SQL text.
            let serial = SerialNumber(trusted: "\(index)-" + String(text.prefix(200)))
            let pass = try fixture.makePass(serial: serial, name: text)
            let read = try #require(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: serial) })
            #expect(read.attendeeName == text)
            #expect(read == pass)
            _ = try fixture.register(device: DeviceLibraryIdentifier(trusted: text), token: PushToken(trusted: text), serial: serial)
            #expect(try fixture.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: StoreFixture.passType, serialNumber: serial) } == [PushToken(trusted: text)])
        }
        // Nothing was executed: every table still exists and holds what was written.
        #expect(try fixture.store.withSession(.read) { try $0.passes.passes(eventID: "none", limit: 1) }.isEmpty)
        let serials = try fixture.store.withSession(.read) {
            try $0.registrations.serials(deviceLibraryIdentifier: DeviceLibraryIdentifier(trusted: Self.strings[1]), passTypeIdentifier: StoreFixture.passType, updatedAfter: nil)
        }
        #expect(serials.serialNumbers.count == 1)
    }

    @Test(arguments: Backend.allCases)
    func nulIsRejectedClearly(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        do {
            try fixture.makePass(serial: SerialNumber(trusted: "nul\u{0}byte"))
            Issue.record("a NUL in text must be rejected")
        } catch let error as StorageError {
            #expect(error.code == .invalidValue)
            #expect(error.description.contains("NUL"))
        }
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "nul") } == nil)
    }

    /// A name with NUL is refused whole on both backends, never stored cut short at the NUL.
    @Test(arguments: Backend.allCases)
    func attendeeNameWithNulIsRejected(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let name = "Ada\u{0}Lovelace"
        #expect(storageCode { try fixture.makePass(serial: "nul-name", name: name) } == .invalidValue)
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "nul-name") } == nil)
        let pass = try fixture.makePass(serial: "nul-update", name: "Ada")
        #expect(storageCode {
            _ = try fixture.store.withSession(.write) {
                try $0.passes.updatePass(
                    passTypeIdentifier: StoreFixture.passType, serialNumber: "nul-update", change: PassChange(attendeeName: name), now: Date()
                )
            }
        } == .invalidValue)
        let read = try #require(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "nul-update") })
        #expect(read == pass)
        #expect(read.attendeeName == "Ada")
    }

    @Test(arguments: Backend.allCases)
    func arbitraryBytesRoundTrip(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let bytes: [UInt8] = [0, 0xff, 0xfe, 0xc3, 0x28, 0x00, 0x5c, 0x27, 0x22] + (0...255).map { UInt8($0) }
        let pass = try fixture.store.withSession(.write) {
            try $0.passes.insertPass(NewPass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: "bytes", authenticationTokenHash: bytes,
                downloadTokenHash: [], attendeeName: "b"
            ), now: Date())
        }
        #expect(pass.authenticationTokenHash == bytes)
        #expect(pass.downloadTokenHash == [])
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(downloadTokenHash: []) }?.authenticationTokenHash == bytes)
    }

    @Test(arguments: Backend.allCases)
    func errorsNeverShowBoundValues(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let secret: SerialNumber = "secret-serial-4711"
        try fixture.makePass(serial: secret)
        do {
            try fixture.makePass(serial: secret)
            Issue.record("duplicate must fail")
        } catch let error as StorageError {
            #expect(error.code == .conflict)
            #expect(!error.description.contains(secret.rawValue))
        }
    }
}

import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@Suite("Pass imports: many passes in one transaction, idempotent by external id", .offCooperativePool, .timeLimit(.minutes(3)))
struct PassImportTests {
    static func newPass(_ serial: SerialNumber, externalID: String? = nil, name: String = "Ada", extra: [String: ExtraValue] = [:]) -> NewPass {
        NewPass(
            passTypeIdentifier: StoreFixture.passType, serialNumber: serial,
            authenticationTokenHash: Array(("auth-" + serial.rawValue).utf8), downloadTokenHash: Array(("download-" + serial.rawValue).utf8),
            attendeeName: name, attendeeEmail: "\(serial.rawValue.lowercased())@example.com", seat: nil, externalID: externalID, extra: extra
        )
    }

    static func count(_ store: any Store, event: String) throws -> Int {
        try store.execute("SELECT count(*) AS n FROM passes WHERE event_id = \(event)").first?.int("n") ?? -1
    }

    @Test(arguments: Backend.allCases)
    func importReturnsEveryPassInOrderAndAReuploadCreatesNothing(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let now = Date()
        let first = try fixture.store.withSession(.write) { session in
            try session.passes.importPasses([
                Self.newPass("I1", externalID: "ext-1", extra: ["gate": .string("B"), "row": .integer(12)]),
                Self.newPass("I2"),
                Self.newPass("I3", externalID: "ext-3"),
            ], eventID: event.id, now: now)
        }
        #expect(first.map(\.pass.serialNumber) == ["I1", "I2", "I3"])
        #expect(first.allSatisfy { $0.created })
        #expect(Set(first.map(\.pass.revision)).count == 1, "one import, one revision")
        #expect(first.allSatisfy { $0.pass.eventID == event.id && $0.pass.status == .active })
        // What the import returned is what is stored.
        for imported in first {
            #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: imported.pass.serialNumber) } == imported.pass)
        }
        #expect(first[0].pass.extra == ["gate": .string("B"), "row": .integer(12)])
        #expect(first[0].pass.externalID == "ext-1")

        // The same list again (new serial numbers, as a new request would draw) plus one new row.
        let second = try fixture.store.withSession(.write) { session in
            try session.passes.importPasses([
                Self.newPass("J1", externalID: "ext-1", name: "Someone else"),
                Self.newPass("J3", externalID: "ext-3"),
                Self.newPass("J4", externalID: "ext-4"),
            ], eventID: event.id, now: now)
        }
        #expect(second.map(\.created) == [false, false, true])
        #expect(second[0].pass == first[0].pass, "the existing pass comes back unchanged")
        #expect(second[1].pass == first[2].pass)
        #expect(second[2].pass.serialNumber == "J4")
        #expect(try Self.count(fixture.store, event: event.id) == 4)
    }

    @Test(arguments: Backend.allCases)
    func largeImportsSpanSeveralStatements(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let passes = (0..<2_345).map { Self.newPass("L\($0)", externalID: $0.isMultiple(of: 2) ? "e\($0)" : nil) }
        let imported = try fixture.store.withSession(.write) { try $0.passes.importPasses(passes, eventID: event.id, now: Date()) }
        #expect(imported.map(\.pass.serialNumber) == passes.map(\.serialNumber))
        #expect(try Self.count(fixture.store, event: event.id) == 2_345)
        let again = try fixture.store.withSession(.write) { try $0.passes.importPasses(Array(passes.prefix(1_500)).filter { $0.externalID != nil }.map {
            Self.newPass("R\($0.serialNumber)", externalID: $0.externalID)
        }, eventID: event.id, now: Date()) }
        #expect(again.count == 750)
        #expect(again.allSatisfy { !$0.created })
        #expect(try Self.count(fixture.store, event: event.id) == 2_345)
    }

    @Test(arguments: Backend.allCases)
    func allOrNothing(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        try fixture.makePass(serial: "TAKEN", eventID: event.id)
        // The last pass of the second statement collides with an existing serial number.
        var passes = (0..<1_500).map { Self.newPass("A\($0)") }
        passes.append(Self.newPass("TAKEN"))
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.passes.importPasses(passes, eventID: event.id, now: Date()) } } == .conflict)
        #expect(try Self.count(fixture.store, event: event.id) == 1, "nothing of the failed import remains")

        let twice = [Self.newPass("D1", externalID: "same"), Self.newPass("D2", externalID: "same")]
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.passes.importPasses(twice, eventID: event.id, now: Date()) } } == .invalidValue)
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.passes.importPasses([Self.newPass("N1")], eventID: "missing", now: Date()) } } == .notFound)
        #expect(try Self.count(fixture.store, event: event.id) == 1)
    }

    @Test(arguments: Backend.allCases)
    func concurrentImportsOfOneListIssueEachExternalIDOnce(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let store = fixture.store
        try onThreads(4) { thread in
            let passes = (0..<200).map { Self.newPass("C\(thread)-\($0)", externalID: "x\($0)") }
            _ = try store.withSession(.write) { try $0.passes.importPasses(passes, eventID: event.id, now: Date()) }
        }
        #expect(try Self.count(fixture.store, event: event.id) == 200)
    }

    @Test(arguments: Backend.allCases)
    func externalIDsAreUniquePerEventOnly(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let one = try fixture.makeEvent()
        let two = try fixture.makeEvent()
        _ = try fixture.store.withSession(.write) { try $0.passes.importPasses([Self.newPass("U1", externalID: "e")], eventID: one.id, now: Date()) }
        let other = try fixture.store.withSession(.write) { try $0.passes.importPasses([Self.newPass("U2", externalID: "e")], eventID: two.id, now: Date()) }
        #expect(other.first?.created == true)
        var duplicate = Self.newPass("U3", externalID: "e")
        duplicate.eventID = one.id
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.passes.insertPass(duplicate, now: Date()) } } == .conflict)
        // A change to an external id the event has is a conflict too; clearing one is fine.
        let change = PassChange(externalID: .some("e"))
        try fixture.makePass(serial: "U4", eventID: one.id)
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "U4", change: change, now: Date()) } } == .conflict)
        let cleared = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "U1", change: PassChange(externalID: .some(nil)), now: Date())
        }
        #expect(cleared.pass.externalID == nil)
    }

    @Test(arguments: Backend.allCases)
    func extraValuesMergeOnChange(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        _ = try fixture.store.withSession(.write) { session in
            try session.passes.importPasses([Self.newPass("X1", extra: ["gate": .string("A"), "type": .string("VIP")])], eventID: event.id, now: Date())
        }
        // Any text survives the column's JSON: quotes, backslashes, control characters, emoji.
        let hostile: [String: ExtraValue] = ["note": .string("\"}\\\u{1}\n\té 🎉 {\"x\":1}"), "n": .integer(Int64.min), "gate": .string("")]
        let stored = try fixture.store.withSession(.write) { try $0.passes.importPasses([Self.newPass("X0", extra: hostile)], eventID: event.id, now: Date()) }
        #expect(stored.first?.pass.extra == hostile)
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "X0") }?.extra == hostile)
        let values: [String: ExtraValue?] = ["gate": ExtraValue.string("C"), "type": nil as ExtraValue?, "row": ExtraValue.integer(-3)]
        let change = PassChange(extra: values)
        let updated = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "X1", change: change, now: Date())
        }
        let expected: [String: ExtraValue] = ["gate": .string("C"), "row": .integer(-3)]
        #expect(updated.pass.extra == expected)
        let again = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "X1", change: change, now: Date())
        }
        guard case .unchanged = again else {
            Issue.record("the same values again change nothing")
            return
        }
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "X1") }?.extra == updated.pass.extra)
    }
}

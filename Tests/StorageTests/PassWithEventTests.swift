import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

/// `passWithEvent`: a phone's fetch reads its pass and the pass's event in one statement.
@Suite("A pass with its event in one read", .offCooperativePool)
struct PassWithEventTests {
    @Test("the pass and its event as their own reads give them; nil event without one; nil for an unknown pass", arguments: Backend.allCases)
    func sameAsTwoReads(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        _ = try fixture.makeEvent()
        let pass = try fixture.makePass(serial: "WITH-EVENT", eventID: event.id)
        let alone = try fixture.makePass(serial: "NO-EVENT")
        try fixture.store.withSession(.read) { session in
            let found = try #require(try session.passes.passWithEvent(passTypeIdentifier: StoreFixture.passType, serialNumber: "WITH-EVENT"))
            #expect(found.pass == (try session.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "WITH-EVENT")))
            #expect(found.pass.id == pass.id)
            #expect(found.event == (try session.events.event(id: event.id)))
            #expect(found.event?.id == event.id)

            let lone = try #require(try session.passes.passWithEvent(passTypeIdentifier: StoreFixture.passType, serialNumber: "NO-EVENT"))
            #expect(lone.pass == (try session.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "NO-EVENT")))
            #expect(lone.pass.id == alone.id)
            #expect(lone.event == nil)

            #expect(try session.passes.passWithEvent(passTypeIdentifier: StoreFixture.passType, serialNumber: "UNKNOWN") == nil)
        }
    }
}

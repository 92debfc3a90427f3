import Foundation
import HTTPServer
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

@Suite("Device API: after a pass changes", .offCooperativePool, .timeLimit(.minutes(3)))
struct DevicePassChangeTests {
    @Test("old tag lists exactly the changed serials; new tag is 204; If-Modified-Since gives 200 then 304", arguments: Backend.allCases)
    func changeCycle(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serials = try app.issueTickets(3)
        let phone = Phone(app: app)
        for serial in serials { try phone.register(serial) }
        let first = try phone.changedSerials()
        #expect(Set(first.serials) == Set(serials))
        let oldTag = try #require(first.lastUpdated)
        let original = try phone.fetch(serials[1])
        let oldLastModified = try #require(original.header("Last-Modified"))
        #expect(try phone.fetch(serials[1], ifModifiedSince: oldLastModified).status == 304)

        try app.renameAttendee(serials[1], to: "Grace Hopper")

        let changed = try phone.changedSerials(since: oldTag)
        #expect(changed.status == 200)
        #expect(changed.serials == [serials[1]], "only the pass that changed")
        let newTag = try #require(changed.lastUpdated)
        #expect(try #require(Int64(newTag)) > (try #require(Int64(oldTag))))
        #expect(try phone.changedSerials(since: newTag).status == 204)

        let updated = try phone.fetch(serials[1], ifModifiedSince: oldLastModified)
        #expect(updated.status == 200)
        let newLastModified = try #require(updated.header("Last-Modified"))
        #expect(try #require(HTTPDate.parse(newLastModified)) > (try #require(HTTPDate.parse(oldLastModified))))
        let json = try PassArchive.passJSON(updated.body)
        #expect(PassArchive.strings(in: json).contains("Grace Hopper"))
        #expect(!PassArchive.strings(in: json).contains("Attendee 1"))

        let unchanged = try phone.fetch(serials[1], ifModifiedSince: newLastModified)
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        #expect(unchanged.header("Last-Modified") == newLastModified)
        // The other passes are untouched: the phone's copy is still current.
        #expect(try phone.fetch(serials[0], ifModifiedSince: oldLastModified).status == 304)
    }

    @Test("two changes within one second are both seen", arguments: Backend.allCases)
    func twoChangesInOneSecond(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let phone = Phone(app: app)
        try phone.register(serial)
        let initialTag = try #require(try phone.changedSerials().lastUpdated)

        // Both changes carry the same wall-clock second, so only the server's rules can tell them apart.
        let instant = Date()
        let update1 = try app.store.withSession(.write) {
            try $0.passes.updatePass(
                passTypeIdentifier: app.passType, serialNumber: "\(serial)", change: PassChange(attendeeName: "First Name"), now: instant
            )
        }
        let firstFetch = try phone.fetch(serial)
        let firstLastModified = try #require(firstFetch.header("Last-Modified"))
        let firstListing = try phone.changedSerials(since: initialTag)
        #expect(firstListing.serials == [serial])
        let firstTag = try #require(firstListing.lastUpdated)

        let update2 = try app.store.withSession(.write) {
            try $0.passes.updatePass(
                passTypeIdentifier: app.passType, serialNumber: "\(serial)", change: PassChange(attendeeName: "Second Name"), now: instant
            )
        }
        #expect(update2.pass.revision > update1.pass.revision)
        #expect(update2.pass.modifiedAt > update1.pass.modifiedAt)

        // The phone holding the first tag sees the second change.
        let secondListing = try phone.changedSerials(since: firstTag)
        #expect(secondListing.serials == [serial])
        let secondTag = try #require(secondListing.lastUpdated)
        #expect(try #require(Int64(secondTag)) > (try #require(Int64(firstTag))))

        let secondFetch = try phone.fetch(serial, ifModifiedSince: firstLastModified)
        #expect(secondFetch.status == 200, "the first Last-Modified must not hide the second change")
        let secondLastModified = try #require(secondFetch.header("Last-Modified"))
        #expect(secondLastModified != firstLastModified)
        #expect(PassArchive.strings(in: try PassArchive.passJSON(secondFetch.body)).contains("Second Name"))
        // Our own Last-Modified may run ahead of the clock; echoing it back is still a 304.
        #expect(try phone.fetch(serial, ifModifiedSince: secondLastModified).status == 304)
        #expect(try phone.changedSerials(since: secondTag).status == 204)
    }

    @Test("a voided pass is still served, with voided true", arguments: Backend.allCases)
    func voidedPass(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let phone = Phone(app: app)
        try phone.register(serial)
        let tag = try #require(try phone.changedSerials().lastUpdated)

        try app.cancelTicket(serial)

        #expect(try phone.changedSerials(since: tag).serials == [serial])
        let pass = try phone.fetch(serial)
        #expect(pass.status == 200)
        let json = try PassArchive.passJSON(pass.body)
        #expect(json["voided"] as? Bool == true)
        // The phone may still re-register and unregister a voided pass.
        #expect(try phone.register(serial).status == 200)
        #expect(try phone.unregister(serial).status == 200)
    }

    @Test("unparsable or future If-Modified-Since is ignored (200); unparsable passesUpdatedSince lists every serial", arguments: Backend.allCases)
    func untrustedInputs(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serials = try app.issueTickets(2)
        let phone = Phone(app: app)
        for serial in serials { try phone.register(serial) }
        try app.renameAttendee(serials[0], to: "Changed Once")

        let future = HTTPDate.format(epochSeconds: Int64(Date().timeIntervalSince1970) + 86_400 * 365)
        for header in ["yesterday", "1700000000", "Sun, 32 Nov 2026 08:49:37 GMT", future] {
            let response = try phone.fetch(serials[0], ifModifiedSince: header)
            #expect(response.status == 200, "If-Modified-Since: \(header)")
            #expect(!response.body.isEmpty)
        }
        for tag in ["abc", "-5", "1.5", "99999999999999999999999"] {
            let listed = try phone.changedSerials(since: tag)
            #expect(listed.status == 200, "passesUpdatedSince=\(tag)")
            #expect(Set(listed.serials) == Set(serials))
        }
        let empty = try phone.changedSerials(since: "")
        #expect(Set(empty.serials) == Set(serials))
    }
}

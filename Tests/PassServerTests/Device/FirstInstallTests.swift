import Foundation
import HTTPServer
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Device API: first install", .offCooperativePool, .serialized, .timeLimit(.minutes(3)))
struct FirstInstallTests {
    @Test("register → list without a tag → fetch, as a real phone does", arguments: Backend.allCases)
    func firstInstall(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let phone = Phone(app: app)

        #expect(try phone.register(serial).status == 201)
        let listed = try phone.changedSerials()
        #expect(listed.status == 200)
        #expect(listed.serials == [serial])
        #expect(listed.lastUpdated != nil)

        let pass = try phone.fetch(serial)
        #expect(pass.status == 200)
        #expect(pass.header("Content-Type") == "application/vnd.apple.pkpass")
        let lastModified = try #require(pass.header("Last-Modified"))
        #expect(HTTPDate.parse(lastModified) != nil)
        #expect(pass.body.starts(with: [0x50, 0x4B, 0x03, 0x04]), "a zip archive")
    }

    @Test("two passes on one device: the first list returns both, each fetch carries its own Last-Modified", arguments: Backend.allCases)
    func twoPassesOnOneDevice(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serials = try app.issueTickets(2)
        let phone = Phone(app: app)

        #expect(try phone.register(serials[0]).status == 201)
        #expect(try phone.register(serials[1]).status == 201)
        let listed = try phone.changedSerials()
        #expect(listed.status == 200)
        #expect(Set(listed.serials) == Set(serials))
        #expect(listed.serials.count == 2)
        let tag = try #require(listed.lastUpdated)
        #expect(Int64(tag) != nil, "the tag is our revision number")

        for serial in serials {
            let pass = try phone.fetch(serial)
            #expect(pass.status == 200)
            #expect(pass.header("Last-Modified").flatMap(HTTPDate.parse) != nil)
            let json = try PassArchive.passJSON(pass.body)
            #expect(json["serialNumber"] as? String == serial)
            #expect(json["authenticationToken"] as? String == app.authenticationToken(serial: serial))
        }
        // Nothing changed since: the tag we were given lists nothing.
        #expect(try phone.changedSerials(since: tag).status == 204)
    }

    @Test("webServiceURL inside the pass is PUBLIC_URL", arguments: Backend.allCases)
    func webServiceURL(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let pass = try Phone(app: app).fetch(serial)
        #expect(pass.status == 200)
        let json = try PassArchive.passJSON(pass.body)
        #expect(json["webServiceURL"] as? String == "https://passes.example.test")
        #expect(json["passTypeIdentifier"] as? String == app.passTypeIdentifier)
    }
}

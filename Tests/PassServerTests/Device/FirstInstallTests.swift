import Foundation
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Device API: first install", .serialized)
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
}

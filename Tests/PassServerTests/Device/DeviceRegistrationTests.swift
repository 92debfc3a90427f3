import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

@Suite("Device API: registrations", .offCooperativePool, .timeLimit(.minutes(3)))
struct DeviceRegistrationTests {
    @Test("repeated registration is 200; a changed push token replaces the stored one", arguments: Backend.allCases)
    func repeatedRegistration(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        var phone = Phone(app: app)

        #expect(try phone.register(serial).status == 201)
        #expect(try phone.register(serial).status == 200)
        #expect(try app.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: app.passType, serialNumber: "\(serial)") }.map(\.rawValue) == [phone.pushToken])

        let oldToken = phone.pushToken
        phone.pushToken = Phone.randomPushToken().uppercased()
        #expect(try phone.register(serial).status == 200)
        let stored = try app.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: app.passType, serialNumber: "\(serial)") }.map(\.rawValue)
        #expect(stored == [phone.pushToken.lowercased()], "the new token, stored lowercase")
        #expect(!stored.contains(oldToken))
        #expect(try app.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: app.passType, serialNumber: "\(serial)") } == 1)
    }

    @Test("a second device for the same pass, and the same device with two passes", arguments: Backend.allCases)
    func devicesAndPasses(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serials = try app.issueTickets(2)
        let phone = Phone(app: app)
        let watch = Phone(app: app)

        #expect(try phone.register(serials[0]).status == 201)
        #expect(try watch.register(serials[0]).status == 201, "another device registering the same pass is new")
        #expect(try phone.register(serials[1]).status == 201, "the same device registering another pass is new")

        let tokens = try app.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: app.passType, serialNumber: "\(serials[0])") }.map(\.rawValue)
        #expect(Set(tokens) == [phone.pushToken, watch.pushToken])
        #expect(Set(try phone.changedSerials().serials) == Set(serials))
        #expect(try watch.changedSerials().serials == [serials[0]])
    }

    @Test("unregister, then list: the serial is gone; unregistering twice is 200 both times", arguments: Backend.allCases)
    func unregister(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serials = try app.issueTickets(2)
        let phone = Phone(app: app)
        try phone.register(serials[0])
        try phone.register(serials[1])
        let deviceQuery: SQLQuery = "SELECT count(*) AS n FROM devices WHERE device_library_identifier = \(phone.deviceLibraryIdentifier)"
        #expect(try app.store.execute(deviceQuery).first?.int("n") == 1, "the query finds the registered device")

        #expect(try phone.unregister(serials[0]).status == 200)
        #expect(try phone.changedSerials().serials == [serials[1]])
        #expect(try phone.unregister(serials[0]).status == 200, "already gone is harmless")
        #expect(try phone.unregister(serials[1]).status == 200)
        let listed = try phone.changedSerials()
        #expect(listed.status == 204)
        #expect(try app.store.execute(deviceQuery).first?.int("n") == 0, "a device left without registrations is forgotten")
        // Never registered at all: still 200.
        #expect(try Phone(app: app).unregister(serials[0]).status == 200)
    }

    @Test("the list endpoint answers 204 for a device it does not know, whatever the tag", arguments: Backend.allCases)
    func unknownDevice(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        // A device that registered is known: its list answers 200, and 204 for a pass type it never registered.
        let owner = Phone(app: app)
        #expect(try owner.register(serial).status == 201)
        #expect(try owner.changedSerials().status == 200)
        #expect(try app.request("GET", "/v1/devices/\(owner.deviceLibraryIdentifier)/registrations/pass.com.example.other").status == 204)
        let stranger = Phone(app: app)
        for tag in [nil, "0", "12", "garbage", ""] as [String?] {
            let listed = try stranger.changedSerials(since: tag)
            #expect(listed.status == 204, "tag \(tag ?? "absent")")
        }
        // Another pass type the device never registered for: also 204.
        let other = try app.request("GET", "/v1/devices/\(stranger.deviceLibraryIdentifier)/registrations/pass.com.example.other")
        #expect(other.status == 204)
    }

    @Test("the database holds a 32-byte hash of the token, never the token", arguments: Backend.allCases)
    func tokenStoredHashed(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let stored = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") })
        let token = app.authenticationToken(serial: serial)
        #expect(stored.authenticationTokenHash.count == 32)
        #expect(stored.authenticationTokenHash != Array(token.utf8))
        #expect(try stored.authenticationTokenHash == TokenVault.hash(token))
        #expect(try TokenVault.matches(token, storedHash: stored.authenticationTokenHash))
        #expect(try !TokenVault.matches(token + "x", storedHash: stored.authenticationTokenHash))
        // The token does not appear in any column as text either.
        let rows = try app.store.execute(SQLQuery(unsafeRaw: "SELECT * FROM passes"))
        #expect(rows.count == 1)
        // The rows' text shows their values (the serial is there), and the token is not among them.
        #expect("\(rows)".contains(serial))
        #expect(!"\(rows)".contains(token))
    }
}

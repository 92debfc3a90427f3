import PassIdentifiers
import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Device API: cached token hashes", .offCooperativePool, .timeLimit(.minutes(3)))
struct AuthenticationCacheTests {
    @Test("after a pass's hash is cached, wrong tokens are still refused and right ones accepted", arguments: Backend.allCases)
    func cachedHashStillChecks(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let other = try app.issueTicket(event: event)
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        // The attempts below are checked against the cached hash, not a fresh read.
        let passType = try #require(PassTypeIdentifier(app.passTypeIdentifier))
        #expect(app.application.authentication.hash(passType: passType, serial: try #require(SerialNumber(serial))) != nil)
        #expect(app.application.authentication.hash(passType: passType, serial: try #require(SerialNumber(other))) == nil)

        let path = "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)/\(serial)"
        let body = Array(#"{"pushToken":"\#(phone.pushToken)"}"#.utf8)
        let attempts: [[(String, String)]] = [
            [("Authorization", "ApplePass \(app.authenticationToken(serial: other))")],
            [("Authorization", "ApplePass \(String(repeating: "x", count: 43))")],
            [("Authorization", "Bearer \(app.authenticationToken(serial: serial))")],
            [],
        ]
        for headers in attempts {
            let response = try app.request("POST", path, headers: headers + [("Content-Type", "application/json")], body: body)
            #expect(response.status == 401)
            #expect(response.errorCode == "unauthorized")
            #expect(try app.request("DELETE", path, headers: headers).status == 401)
        }
        #expect(try phone.register(serial).status == 200)
        #expect(try phone.unregister(serial).status == 200)
        #expect(try phone.changedSerials().status == 204)
    }

    @Test("the cache is bounded")
    func bounded() throws {
        let cache = AuthenticationCache(capacity: 3)
        let passType: PassTypeIdentifier = "pass.test.cache"
        for index in 0..<10 {
            cache.remember([UInt8](repeating: UInt8(index), count: 32), passType: passType, serial: "s\(index)")
            #expect(cache.count <= 3)
        }
        #expect(cache.hash(passType: passType, serial: "s9") == [UInt8](repeating: 9, count: 32))
    }
}

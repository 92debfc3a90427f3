import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Device API: every authentication failure is the same 401", .offCooperativePool, .timeLimit(.minutes(3)))
struct DeviceAuthenticationTests {
    /// One way of getting authentication wrong: the path's pass type and serial, and the header.
    struct Case {
        var label: String
        var passType: String
        var serial: String
        var authorization: String?
    }

    static func cases(app: TestApp, serial: String, other: String) -> [Case] {
        let token = app.authenticationToken(serial: serial)
        return [
            Case(label: "missing Authorization", passType: app.passTypeIdentifier, serial: serial, authorization: nil),
            Case(label: "wrong scheme", passType: app.passTypeIdentifier, serial: serial, authorization: "Bearer x"),
            Case(label: "Bearer with the right token", passType: app.passTypeIdentifier, serial: serial, authorization: "Bearer \(token)"),
            Case(label: "lowercase scheme", passType: app.passTypeIdentifier, serial: serial, authorization: "applepass \(token)"),
            Case(label: "two spaces", passType: app.passTypeIdentifier, serial: serial, authorization: "ApplePass  \(token)"),
            Case(label: "wrong token", passType: app.passTypeIdentifier, serial: serial, authorization: "ApplePass " + String(repeating: "x", count: 43)),
            Case(label: "short token", passType: app.passTypeIdentifier, serial: serial, authorization: "ApplePass abc"),
            Case(label: "empty token", passType: app.passTypeIdentifier, serial: serial, authorization: "ApplePass "),
            Case(label: "token with one character changed", passType: app.passTypeIdentifier, serial: serial,
                 authorization: "ApplePass " + String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A")),
            Case(label: "token of another pass", passType: app.passTypeIdentifier, serial: serial,
                 authorization: "ApplePass \(app.authenticationToken(serial: other))"),
            Case(label: "unknown serial", passType: app.passTypeIdentifier, serial: "unknown-serial-1234", authorization: "ApplePass \(token)"),
            Case(label: "unknown pass type", passType: "pass.com.example.unknown", serial: serial, authorization: "ApplePass \(token)"),
        ]
    }

    @Test("register, unregister and fetch answer one identical 401 body", arguments: Backend.allCases)
    func unauthorized(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serials = try app.issueTickets(2)
        let phone = Phone(app: app)
        #expect(try phone.register(serials[1]).status == 201)
        let registrationBody = Array(#"{"pushToken":"\#(phone.pushToken)"}"#.utf8)

        var bodies = Set<[UInt8]>()
        for testCase in Self.cases(app: app, serial: serials[0], other: serials[1]) {
            var headers: [(String, String)] = testCase.authorization.map { [("Authorization", $0)] } ?? []
            let registration = "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(testCase.passType)/\(testCase.serial)"
            let requests: [(String, String, [UInt8])] = [
                ("POST", registration, registrationBody),
                ("DELETE", registration, []),
                ("GET", "/v1/passes/\(testCase.passType)/\(testCase.serial)", []),
            ]
            headers.append(("Content-Type", "application/json"))
            for (method, path, body) in requests {
                let response = try app.request(method, path, headers: headers, body: body)
                #expect(response.status == 401, "\(testCase.label): \(method)")
                #expect(response.errorCode == "unauthorized", "\(testCase.label): \(method)")
                #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
                bodies.insert(response.body)
            }
        }
        #expect(bodies.count == 1, "one body for every failure: nothing tells an unknown pass from a wrong token")

        // Nothing was changed by the refused requests.
        #expect(try app.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: app.passType, serialNumber: "\(serials[0])") } == 0)
        #expect(try app.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: app.passType, serialNumber: "\(serials[1])") } == 1)
        // And the right token still works afterwards.
        #expect(try phone.register(serials[0]).status == 201)
    }

    @Test("the list endpoint needs no token and ignores a wrong one", arguments: Backend.allCases)
    func listNeedsNoToken(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let phone = Phone(app: app)
        try phone.register(serial)
        let path = "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)"
        let response = try app.request("GET", path, headers: [("Authorization", "ApplePass wrong-token-wrong-token")])
        #expect(response.status == 200)
        #expect(response.jsonObject?["serialNumbers"] as? [String] == [serial])
    }

    @Test("a missing Authorization is 401 even when a path segment is malformed too", arguments: Backend.allCases)
    func missingAuthorizationBeatsABadSegment(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let phone = Phone(app: app)
        let passType = app.passTypeIdentifier
        let body = Array(#"{"pushToken":"\#(phone.pushToken)"}"#.utf8)
        let json = [("Content-Type", "application/json")]
        let cases: [(method: String, path: String)] = [
            ("POST", "/v1/devices/dev.ice/registrations/\(passType)/\(serial)"),
            ("POST", "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/nopass/\(serial)"),
            ("POST", "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(passType)/bad%20serial"),
            ("DELETE", "/v1/devices/dev.ice/registrations/\(passType)/\(serial)"),
            ("DELETE", "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(passType)/bad%20serial"),
            ("GET", "/v1/passes/nopass/\(serial)"),
            ("GET", "/v1/passes/\(passType)/bad%20serial"),
        ]
        for testCase in cases {
            let response = try app.request(testCase.method, testCase.path, headers: json, body: testCase.method == "POST" ? body : [])
            #expect(response.status == 401, "\(testCase.method) \(testCase.path)")
            #expect(response.errorCode == "unauthorized", "\(testCase.method) \(testCase.path): \(response.text)")
            // With a well-formed token the malformed segment is named.
            let named = try app.request(testCase.method, testCase.path, headers: json + [phone.auth(serial)], body: testCase.method == "POST" ? body : [])
            #expect(named.status == 400, "\(testCase.method) \(testCase.path)")
        }
    }

    @Test("registration checks the ApplePass token before it reads the body", arguments: Backend.allCases)
    func registrationRefusedBeforeTheBody(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let phone = Phone(app: app)
        let path = "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)/\(serial)"
        for authorization in ["ApplePass " + String(repeating: "x", count: 43), app.authenticationToken(serial: serial)] {
            let client = try TestClient(port: app.port, timeout: 10)
            client.send("POST \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: \(authorization)\r\nContent-Type: application/json\r\nContent-Length: 60000\r\nExpect: 100-continue\r\n\r\n")
            let response = try #require(try client.readResponse())
            #expect(response.status == 401, "refused from the headers, instead of 100 Continue: \(response.status)")
            #expect(response.errorCode == "unauthorized")
        }
        // The right token gets 100 Continue and then registers.
        let client = try TestClient(port: app.port, timeout: 10)
        let body = #"{"pushToken":"\#(phone.pushToken)"}"#
        client.send("POST \(path) HTTP/1.1\r\nHost: x\r\n\(phone.auth(serial).0): \(phone.auth(serial).1)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        #expect(try client.readResponse()?.status == 100)
        client.send(body)
        #expect(try client.readResponse()?.status == 201)
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Device API: malformed requests are 4xx, never 500", .offCooperativePool, .timeLimit(.minutes(3)))
struct DeviceMalformedRequestTests {
    @Test("bad registration input is 400 with a code naming the problem", arguments: Backend.allCases)
    func badRegistrations(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let phone = Phone(app: app)
        let path = "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)/\(serial)"
        let json = ("Content-Type", "application/json")
        let cases: [(label: String, headers: [(String, String)], body: String, code: String)] = [
            ("malformed JSON", [json], #"{"pushToken": "#, "malformed_json"),
            ("not an object", [json], #"["a"]"#, "malformed_json"),
            ("pushToken of the wrong type", [json], #"{"pushToken": 12}"#, "malformed_json"),
            ("wrong Content-Type", [("Content-Type", "text/plain")], #"{"pushToken":"\#(phone.pushToken)"}"#, "unsupported_content_type"),
            ("form Content-Type", [("Content-Type", "application/x-www-form-urlencoded")], "pushToken=abc", "unsupported_content_type"),
            ("empty body", [json], "", "missing_body"),
            ("missing pushToken", [json], #"{"token":"abc"}"#, "missing_push_token"),
            ("non-hex pushToken", [json], #"{"pushToken":"\#(String(repeating: "zz", count: 32))"}"#, "invalid_push_token"),
            ("short pushToken", [json], #"{"pushToken":"abcdef"}"#, "invalid_push_token"),
            ("odd-length pushToken", [json], #"{"pushToken":"\#(phone.pushToken)a"}"#, "invalid_push_token"),
            ("overlong pushToken", [json], #"{"pushToken":"\#(String(repeating: "ab", count: 101))"}"#, "invalid_push_token"),
        ]
        for testCase in cases {
            let response = try app.request("POST", path, headers: [phone.auth(serial)] + testCase.headers, body: Array(testCase.body.utf8))
            #expect(response.status == 400, "\(testCase.label)")
            #expect(response.errorCode == testCase.code, "\(testCase.label): \(response.text)")
        }
        #expect(try app.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: app.passType, serialNumber: "\(serial)") } == 0)
        // A charset parameter is fine.
        let accepted = try app.request(
            "POST", path, headers: [phone.auth(serial), ("Content-Type", "application/json; charset=utf-8")],
            body: Array(#"{"pushToken":"\#(phone.pushToken)"}"#.utf8)
        )
        #expect(accepted.status == 201)
    }

    @Test("invalid identifiers in the path are 400 on every device endpoint", arguments: Backend.allCases)
    func badIdentifiers(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let phone = Phone(app: app)
        let passType = app.passTypeIdentifier
        let longDevice = String(repeating: "a", count: 129)
        let registrationCases: [(device: String, passType: String, serial: String, code: String)] = [
            (longDevice, passType, serial, "invalid_device_library_identifier"),
            ("bad%20device", passType, serial, "invalid_device_library_identifier"),
            ("dev.ice", passType, serial, "invalid_device_library_identifier"),
            (phone.deviceLibraryIdentifier, passType, "bad%20serial", "invalid_serial_number"),
            (phone.deviceLibraryIdentifier, passType, "serial%3Cscript%3E", "invalid_serial_number"),
            (phone.deviceLibraryIdentifier, passType, String(repeating: "s", count: 129), "invalid_serial_number"),
            (phone.deviceLibraryIdentifier, "com.example.nopass", serial, "invalid_pass_type_identifier"),
            (phone.deviceLibraryIdentifier, "pass..double", serial, "invalid_pass_type_identifier"),
            (phone.deviceLibraryIdentifier, "pass.bad%2Fslash", serial, "invalid_pass_type_identifier"),
        ]
        let body = Array(#"{"pushToken":"\#(phone.pushToken)"}"#.utf8)
        for testCase in registrationCases {
            let path = "/v1/devices/\(testCase.device)/registrations/\(testCase.passType)/\(testCase.serial)"
            for method in ["POST", "DELETE"] {
                let response = try app.request(method, path, headers: [phone.auth(serial), ("Content-Type", "application/json")], body: method == "POST" ? body : [])
                #expect(response.status == 400, "\(method) \(path)")
                #expect(response.errorCode == testCase.code, "\(method) \(path): \(response.text)")
            }
        }
        let listCases: [(path: String, code: String)] = [
            ("/v1/devices/\(longDevice)/registrations/\(passType)", "invalid_device_library_identifier"),
            ("/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/nopass", "invalid_pass_type_identifier"),
            ("/v1/passes/nopass/\(serial)", "invalid_pass_type_identifier"),
            ("/v1/passes/\(passType)/bad%20serial", "invalid_serial_number"),
        ]
        for testCase in listCases {
            let response = try app.request("GET", testCase.path, headers: [phone.auth(serial)])
            #expect(response.status == 400, "\(testCase.path)")
            #expect(response.errorCode == testCase.code, "\(testCase.path): \(response.text)")
        }
        // Malformed percent-escapes never reach a handler, and are never a 500.
        let escape = try app.request("GET", "/v1/passes/\(passType)/bad%zzserial", headers: [phone.auth(serial)])
        #expect(escape.status == 400)
    }

    @Test("bodies over 64 KiB on device endpoints are 413", arguments: Backend.allCases)
    func oversizedBodies(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let phone = Phone(app: app)
        let padding = String(repeating: "x", count: 70 << 10)
        let registration = try app.request(
            "POST", "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)/\(serial)",
            headers: [phone.auth(serial), ("Content-Type", "application/json")],
            body: Array(#"{"pushToken":"\#(phone.pushToken)","padding":"\#(padding)"}"#.utf8)
        )
        #expect(registration.status == 413)
        #expect(registration.errorCode == "payload_too_large")
        let log = try app.request("POST", "/v1/log", headers: [("Content-Type", "application/json")], body: Array(#"{"logs":["\#(padding)"]}"#.utf8))
        #expect(log.status == 413)
        // Just under the limit is accepted (extra keys are ignored).
        let small = String(repeating: "x", count: 60 << 10)
        let fits = try app.request(
            "POST", "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)/\(serial)",
            headers: [phone.auth(serial), ("Content-Type", "application/json")],
            body: Array(#"{"pushToken":"\#(phone.pushToken)","padding":"\#(small)"}"#.utf8)
        )
        #expect(fits.status == 201)
    }

    @Test("unknown routes are 404, wrong methods 405 with Allow, HEAD on a pass sends headers only", arguments: Backend.allCases)
    func routing(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let phone = Phone(app: app)
        try phone.register(serial)

        #expect(try app.request("GET", "/v1/nope").status == 404)
        #expect(try app.request("GET", "/v1/passes/\(app.passTypeIdentifier)").status == 404)
        #expect(try app.request("GET", "/v2/passes/\(app.passTypeIdentifier)/\(serial)").status == 404)

        let put = try app.request(
            "PUT", "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)/\(serial)", headers: [phone.auth(serial)]
        )
        #expect(put.status == 405)
        let allow = Set((put.header("Allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(allow == ["POST", "DELETE"])
        let postPass = try app.request("POST", "/v1/passes/\(app.passTypeIdentifier)/\(serial)", headers: [phone.auth(serial)])
        #expect(postPass.status == 405)
        #expect(postPass.header("Allow")?.contains("GET") == true)
        let getLog = try app.request("GET", "/v1/log")
        #expect(getLog.status == 405)
        #expect(getLog.header("Allow") == "POST")

        let get = try phone.fetch(serial)
        let head = try phone.fetch(serial, method: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("Last-Modified") == get.header("Last-Modified"))
        #expect(head.header("Content-Type") == "application/vnd.apple.pkpass")
        #expect(head.header("Content-Length") == String(get.body.count))
        let headNotModified = try phone.fetch(serial, ifModifiedSince: get.header("Last-Modified"), method: "HEAD")
        #expect(headNotModified.status == 304)
        var unauthorizedHeaders: [(String, String)] = []
        unauthorizedHeaders.append(("Authorization", "ApplePass " + String(repeating: "y", count: 43)))
        #expect(try app.request("HEAD", "/v1/passes/\(app.passTypeIdentifier)/\(serial)", headers: unauthorizedHeaders).status == 401)
    }
}

import ByteEncoding
import PassIdentifiers
import Certificates
import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer
@testable import Storage

/// Android wallet apps that speak Apple's protocol (WalletPasses: `Authorization: AndroidPass …`),
/// end to end over real HTTP: the device API serves them while ANDROID_PASS_PUSH_URL is set (and
/// refuses them, 401, while it is not), and a change pushes them through the relay (the fake
/// relay), through the durable outbox, while Apple devices of the same pass still go to APNs.
@Suite("Android wallets through the push relay", .offCooperativePool, .timeLimit(.minutes(4)))
struct AndroidWalletTests {
    /// A push fixture with the relay configured to the fake relay.
    struct RelayFixture {
        let relay: FakePushRelay
        let push: PushFixture
        var app: TestApp { push.app }

        init(_ backend: Backend, key: String? = "relay-key-1") throws {
            let relay = try FakePushRelay()
            do {
                push = try PushFixture(backend) { configuration in
                    configuration.androidRelay.url = relay.url
                    configuration.androidRelay.key = key
                }
            } catch {
                relay.shutdown()
                throw error
            }
            self.relay = relay
        }

        func stop() {
            push.stop()
            relay.shutdown()
        }

        /// Issues a ticket and registers a new Android phone for it.
        func registeredAndroidPhone(sourceLocation: SourceLocation = #_sourceLocation) throws -> (phone: Phone, serial: String) {
            let serial = try app.issueTicket(event: push.event)
            let phone = AndroidWalletTests.androidPhone(app)
            #expect(try phone.register(serial).status == 201, sourceLocation: sourceLocation)
            return (phone, serial)
        }

        /// The pushes the relay received for `token`.
        func relayed(_ token: String) -> [FakePushRelay.Push] { relay.pushes.filter { $0.pushTokens.contains(token) } }
    }

    /// The push log of a relay token, newest first.
    static func log(_ fixture: RelayFixture, _ token: String) throws -> [PushLogEntry] {
        let hash = try PushDispatcher.tokenHash(PushToken(trusted: token))
        return try fixture.app.store.withSession(.read) { try $0.outbox.latestPushes(tokenHashes: [hash], limit: 50) }
    }

    /// A phone running WalletPasses: Apple's requests with `AndroidPass` and a relay token.
    static func androidPhone(_ app: TestApp) -> Phone {
        Phone(app: app, pushToken: "wp-" + Base64URL.encode(SecureRandom.bytes(24)), scheme: "AndroidPass")
    }

    @Test("AndroidPass registers, lists, fetches (304 when unchanged) and unregisters", arguments: Backend.allCases)
    func deviceAPI(backend: Backend) throws {
        let fixture = try RelayFixture(backend)
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredAndroidPhone()
        #expect(try phone.register(serial).status == 200)
        let listed = try phone.changedSerials()
        #expect(listed.status == 200)
        #expect(listed.serials == [serial])
        let fetched = try phone.fetch(serial)
        #expect(fetched.status == 200)
        #expect(fetched.header("Content-Type") == "application/vnd.apple.pkpass")
        let lastModified = try #require(fetched.header("Last-Modified"))
        #expect(try phone.fetch(serial, ifModifiedSince: lastModified).status == 304)
        let service = try fixture.app.store.withSession(.read) {
            try $0.execute("SELECT push_service FROM devices WHERE device_library_identifier = \(phone.deviceLibraryIdentifier)").first?.string("push_service")
        }
        #expect(service == "relay")
        #expect(try phone.unregister(serial).status == 200)
        #expect(try fixture.push.registrations(serial) == 0)
        #expect(try phone.changedSerials().status == 204)
    }

    @Test("without ANDROID_PASS_PUSH_URL every AndroidPass request is refused (401), ApplePass still works", arguments: Backend.allCases)
    func refusedWithoutRelay(backend: Backend) throws {
        let fixture = try PushFixture(backend)
        defer { fixture.stop() }
        let serial = try fixture.app.issueTicket(event: fixture.event)
        let android = Self.androidPhone(fixture.app)
        // The same token is accepted as ApplePass: the refusals below are about the scheme alone.
        let apple = Phone(app: fixture.app)
        #expect(try apple.fetch(serial).status == 200)
        #expect(try apple.register(serial).status == 201)
        #expect(try android.register(serial).status == 401)
        #expect(try android.fetch(serial).status == 401)
        #expect(try android.unregister(serial).status == 401)
        #expect(try fixture.registrations(serial) == 1)
    }

    @Test("a change pushes the relay once per token with the API key, and APNs for the Apple device of the same pass", arguments: Backend.allCases)
    func changePushesRelayAndAPNs(backend: Backend) async throws {
        let fixture = try RelayFixture(backend)
        defer { fixture.stop() }
        let serial = try fixture.app.issueTicket(event: fixture.push.event)
        let first = Self.androidPhone(fixture.app)
        let second = Self.androidPhone(fixture.app)
        let apple = Phone(app: fixture.app)
        #expect(try first.register(serial).status == 201)
        #expect(try second.register(serial).status == 201)
        #expect(try apple.register(serial).status == 201)

        try fixture.push.change(serial)
        try await eventually("the relay was asked for both Android tokens, APNs for the Apple one") {
            fixture.relayed(first.pushToken).count == 1 && fixture.relayed(second.pushToken).count == 1
                && fixture.push.fake.count(token: apple.pushToken) == 1
        }
        try await eventually("outbox emptied") { try fixture.push.counts.summary == [0, 0, 0] }
        // Both tokens of the pass type went in one request, with the key.
        #expect(fixture.relay.pushes.count == 1)
        let request = try #require(fixture.relay.pushes.first)
        #expect(request.passTypeIdentifier == fixture.app.passTypeIdentifier)
        #expect(Set(request.pushTokens) == [first.pushToken, second.pushToken])
        #expect(request.authorization == "relay-key-1")
        // No APNs push for an Android token; no relay push for the Apple one.
        #expect(!fixture.push.fake.pushes.contains { $0.token == first.pushToken || $0.token == second.pushToken })
        #expect(fixture.relayed(apple.pushToken).isEmpty)
        #expect(try Self.log(fixture, first.pushToken).map(\.outcome) == ["delivered"])
        #expect(try fixture.app.request("GET", "/metrics").text.contains(#"passserver_relay_pushes_total{outcome="delivered"} 2"#))
        // Settled: nothing more goes out.
        try await Task.sleep(for: .seconds(1))
        #expect(fixture.relay.pushes.count == 1)
    }

    @Test("relay answers 500, 429 and a dropped connection are retried, then delivered", arguments: Backend.allCases)
    func retriedThenDelivered(backend: Backend) async throws {
        let fixture = try RelayFixture(backend)
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredAndroidPhone()
        fixture.relay.script([.status(500), .status(429), .dropConnection])
        try fixture.push.change(serial)
        try await eventually("delivered after three failures", timeout: 60) { fixture.relay.delivered.count == 1 }
        #expect(fixture.relay.pushes.map(\.answer) == [500, 429, 0, 200])
        try await eventually("outbox emptied") { try fixture.push.counts.summary == [0, 0, 0] }
        #expect(try Self.log(fixture, phone.pushToken).map(\.outcome) == ["delivered", "retried", "retried", "retried"])
        #expect(try fixture.push.registrations(serial) == 1)
    }

    @Test("a relay 400 fails the row with its reason; a 401 halts the relay but not APNs", arguments: Backend.allCases)
    func refusals(backend: Backend) async throws {
        let fixture = try RelayFixture(backend)
        defer { fixture.stop() }
        let (_, serial) = try fixture.registeredAndroidPhone()
        fixture.relay.script([.status(400)])
        try fixture.push.change(serial)
        try await eventually("failed") { try fixture.push.counts.failed == 1 }
        let reason = try fixture.app.store.withSession(.read) {
            try $0.execute("SELECT last_status, last_reason FROM push_outbox WHERE push_service = 'relay'").first
        }
        #expect(try reason?.int("last_status") == 400)
        #expect(try reason?.optionalString("last_reason")?.contains("relay answered HTTP 400") == true)

        fixture.relay.script([.status(401)])
        let apple = Phone(app: fixture.app)
        #expect(try apple.register(serial).status == 201)
        try fixture.push.change(serial)
        try await eventually("relay halted") { fixture.app.application.relayDispatcher?.isHalted == true }
        try await eventually("APNs still pushed") { fixture.push.fake.count(token: apple.pushToken) == 1 }
        #expect(fixture.app.application.dispatcher.isHalted == false)
        #expect(try fixture.push.readiness().text.contains("push_relay"))
        let metrics = try fixture.app.request("GET", "/metrics").text
        #expect(metrics.contains("passserver_relay_halted 1"))
        #expect(metrics.contains("passserver_apns_halted 0"))
    }

    @Test("hostile schemes, tokens and push tokens get a clean 4xx", arguments: Backend.allCases)
    func hostileInput(backend: Backend) throws {
        let fixture = try RelayFixture(backend)
        defer { fixture.stop() }
        let serial = try fixture.app.issueTicket(event: fixture.push.event)
        let token = fixture.app.authenticationToken(serial: serial)
        let path = "/v1/devices/\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))/registrations/\(fixture.app.passTypeIdentifier)/\(serial)"
        let json = ("Content-Type", "application/json")
        for header in ["androidpass \(token)", "AndroidPass  \(token)", "AndroidPass", "WalletUnionPass \(token)",
                       "AndroidPass short", "AndroidPass \(String(repeating: "x", count: 300))", "AttidoPass \(token)", "AndroidPassword \(token)"] {
            let response = try fixture.app.request("POST", path, headers: [("Authorization", header), json], body: Array(#"{"pushToken":"abcdefabcdefabcdef"}"#.utf8))
            #expect(response.status == 401, "\(header)")
        }
        for pushToken in [#""short""#, #""has space in it so no""#, #""\#(String(repeating: "a", count: 600))""#, #""quote\"inside-token-x""#, "12345", "null", #"["a"]"#] {
            let response = try fixture.app.request(
                "POST", path, headers: [("Authorization", "AndroidPass \(token)"), json], body: Array(#"{"pushToken":\#(pushToken)}"#.utf8)
            )
            #expect(response.status == 400, "\(pushToken)")
            #expect(response.text.contains(#""error""#))
        }
        #expect(try fixture.push.registrations(serial) == 0)
        // An APNs token is not a relay token's business and vice versa: the Apple rules stay.
        let apple = Phone(app: fixture.app, pushToken: "wp-not-hex-token-000000")
        #expect(try apple.register(serial).status == 400)
    }

    @Test("a device that registers again with the other scheme switches push service", arguments: Backend.allCases)
    func switchingService(backend: Backend) async throws {
        let fixture = try RelayFixture(backend)
        defer { fixture.stop() }
        let registered = try fixture.registeredAndroidPhone()
        let serial = registered.serial
        var phone = registered.phone
        phone.scheme = "ApplePass"
        phone.pushToken = Phone.randomPushToken()
        #expect(try phone.register(serial).status == 200)
        try fixture.push.change(serial)
        try await eventually("pushed through APNs") { fixture.push.fake.count(token: phone.pushToken) == 1 }
        try await eventually("outbox emptied") { try fixture.push.counts.summary == [0, 0, 0] }
        #expect(fixture.relay.pushes.isEmpty)

        phone.scheme = "AndroidPass"
        phone.pushToken = "wp-" + Base64URL.encode(SecureRandom.bytes(24))
        #expect(try phone.register(serial).status == 200)
        try fixture.push.change(serial)
        try await eventually("pushed through the relay") { fixture.relayed(phone.pushToken).count == 1 }
        #expect(fixture.push.fake.count(token: phone.pushToken) == 0)
    }
}

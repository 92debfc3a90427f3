import FakeAPNs
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// A real `Application` sending to a `FakeAPNs` over TLS + HTTP/2, both built from one set of
/// throwaway certificates, plus the helpers the push acceptance tests share.
struct PushFixture {
    let fake: FakeAPNs
    let app: TestApp
    let event: String

    /// Starts the fake (answering `defaultAnswer`) and the application; `configure` adjusts the app.
    init(
        _ backend: Backend, defaultAnswer: FakeAPNs.Answer = .success, goAwayAfter: Int? = nil,
        configure: (inout Configuration) -> Void = { _ in }
    ) throws {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "passserver-push"))
        let fake = try Self.makeFake(certificates, defaultAnswer: defaultAnswer, goAwayAfter: goAwayAfter)
        do {
            try self.init(backend: backend, fake: fake, certificates: certificates, configure: configure)
        } catch {
            fake.shutdown()
            throw error
        }
    }

    /// Starts the application against an existing fake made from `certificates`.
    init(backend: Backend, fake: FakeAPNs, certificates: TestCertificates, configure: (inout Configuration) -> Void = { _ in }) throws {
        self.fake = fake
        app = try TestApp.start(backend, apns: fake, certificates: certificates) { configuration in
            configuration.apns.requestTimeout = 10
            configuration.push.retryBaseDelay = 0.1
            configure(&configuration)
        }
        do {
            event = try app.createEvent()
        } catch {
            app.stop()
            throw error
        }
    }

    /// Wraps an application already sending to `fake` (for tests that replace the fake midway and
    /// stop both themselves).
    init(app: TestApp, fake: FakeAPNs) throws {
        self.fake = fake
        self.app = app
        event = try app.createEvent()
    }

    static func makeFake(
        _ certificates: TestCertificates, defaultAnswer: FakeAPNs.Answer = .success, goAwayAfter: Int? = nil, port: Int = 0
    ) throws -> FakeAPNs {
        var configuration = FakeAPNs.Configuration(
            certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey,
            clientCAPath: certificates.rootCertificate
        )
        configuration.defaultAnswer = defaultAnswer
        configuration.goAwayAfter = goAwayAfter
        configuration.port = UInt16(port)
        return try FakeAPNs(configuration: configuration)
    }

    func stop() {
        // PUSH_TEST_LOGS=1 prints the application's log and the outbox state (diagnosing failures).
        if ProcessInfo.processInfo.environment["PUSH_TEST_LOGS"] != nil {
            print(app.logs.lines.joined(separator: "\n"), "outbox:", (try? counts.summary) ?? [], "fake pushes:", fake.pushes.count)
        }
        app.stop()
        fake.shutdown()
    }

    /// Issues a ticket and registers a new phone for it through the device API.
    func registeredPhone(serial: String? = nil) throws -> (phone: Phone, serial: String) {
        let serial = try serial ?? app.issueTicket(event: event)
        let phone = Phone(app: app)
        let status = try phone.register(serial).status
        guard status == 201 || status == 200 else { throw TestClient.Failure(description: "registration answered \(status)") }
        return (phone, serial)
    }

    /// Changes a ticket through the admin API (which enqueues pushes to its devices).
    func change(_ serial: String, seat: String = "S\(Int.random(in: 1...99_999))") throws {
        let response = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"seat":"\#(seat)"}"#)
        guard response.status == 200 else { throw TestClient.Failure(description: "PATCH answered \(response.status) \(response.text)") }
    }

    var counts: OutboxCounts {
        get throws { try app.store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) } }
    }

    func registrations(_ serial: String) throws -> Int {
        try app.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: app.passType, serialNumber: "\(serial)") }
    }

    /// The push log of one token, newest first.
    func log(_ token: String) throws -> [PushLogEntry] {
        try app.store.withSession(.read) { try $0.outbox.latestPushes(tokenHashes: [PushDispatcher.tokenHash(.hex(token))], limit: 50) }
    }

    func readiness() throws -> TestResponse { try app.request("GET", "/readyz") }
}

extension OutboxCounts {
    /// `[pending, inFlight, failed]`, for comparisons in tests.
    var summary: [Int] { [pending, inFlight, failed] }
}

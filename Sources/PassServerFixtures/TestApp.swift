package import FakeAPNs
package import PassIdentifiers
package import Foundation
package import Logging
package import PassServer
package import PassServerTesting
package import Storage
import Synchronization
import Testing

/// The two stores every application test runs on.
package enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    package var testDescription: String { rawValue }

    /// A fresh, empty database of this backend (a new PostgreSQL database per call).
    package func freshDatabaseURL(in directory: String) throws -> String {
        switch self {
        case .sqlite: return "sqlite://\(directory)/pass-server.sqlite"
        case .postgres: return try TestPostgres.createDatabase()
        }
    }
}

/// A running `Application` on 127.0.0.1 with throwaway certificates and a fresh database, driven
/// over real HTTP.
package final class TestApp: Sendable {
    package let application: Application
    package let certificates: TestCertificates
    package let directory: String
    package let databaseURL: String
    package let logs: MemorySink
    package let adminToken: String

    package var port: Int { application.port }
    package var store: any Store { application.store }
    package var passTypeIdentifier: String { application.passes.signer.passTypeIdentifier }
    /// The same, as the store takes it.
    package var passType: PassTypeIdentifier { "\(passTypeIdentifier)" }

    /// Starts an application. `apns` nil logs pushes instead of sending; otherwise pushes go to that fake.
    /// `frozenAt` stops the application's wall clock for certificate checks and retention at that
    /// instant (real time by default).
    /// `clock`, when given, is the application's wall clock (a test moves it forward).
    package static func start(
        _ backend: Backend, apns: FakeAPNs? = nil, databaseURL: String? = nil, certificates: TestCertificates? = nil,
        frozenAt: Date? = nil, clock: MovableClock? = nil, configure: (inout Configuration) -> Void = { _ in }
    ) throws -> TestApp {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passserver-app")
        let certificates = try certificates ?? TestCertificates.make(in: directory)
        let databaseURL = try databaseURL ?? backend.freshDatabaseURL(in: directory)
        var configuration = Configuration()
        configuration.http.port = 0
        configuration.http.threads = 8
        configuration.http.publicURL = URL(string: "https://passes.example.test")
        configuration.signing.organizationName = "Example Events"
        configuration.database.url = databaseURL
        configuration.logLevel = .info
        configuration.tokenSecret = Array(repeating: 7, count: 32)
        configuration.passesDirectory = PassServerExecutable.packageRoot.appendingPathComponent("Passes").path
        configuration.signing.certificate = certificates.passCertificate
        configuration.signing.privateKey = certificates.passKey
        configuration.signing.wwdrCertificate = certificates.wwdrCertificate
        if let apns {
            configuration.apns.mode = .live
            configuration.apns.url = apns.url
            configuration.apns.caFile = certificates.rootCertificate
            configuration.apns.requestTimeout = 10
        } else {
            configuration.apns.mode = .log
        }
        configure(&configuration)
        let logs = MemorySink()
        var now: @Sendable () -> Date = Date.init
        if let frozenAt { now = { frozenAt } }
        if let clock { now = { clock.now() } }
        let application = try Application(configuration: configuration, logSink: logs, now: now)
        try application.start()
        let token = AdminAuthentication.newToken()
        _ = try application.store.withSession(.write) {
            try $0.admin.createAdminToken(name: "test-\(UUID().uuidString.prefix(8))", tokenHash: TokenVault.hash(token), now: Date())
        }
        return TestApp(application: application, certificates: certificates, directory: directory, databaseURL: databaseURL, logs: logs, adminToken: token)
    }

    private init(application: Application, certificates: TestCertificates, directory: String, databaseURL: String, logs: MemorySink, adminToken: String) {
        self.application = application
        self.certificates = certificates
        self.directory = directory
        self.databaseURL = databaseURL
        self.logs = logs
        self.adminToken = adminToken
    }

    package func stop() {
        application.shutdown()
    }

    /// One request on a new connection.
    package func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> TestResponse {
        try TestClient(port: port, timeout: 30).request(method, target, headers: headers, body: body)
    }

    /// A JSON request to the admin API with this app's admin token.
    package func admin(_ method: String, _ target: String, json: String? = nil) throws -> TestResponse {
        var headers = [("Authorization", "Bearer \(adminToken)")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try request(method, target, headers: headers, body: Array((json ?? "").utf8))
    }

    /// The `ApplePass` token of a pass (derived from the configured secret, as the server does).
    package func authenticationToken(serial: String) -> String {
        guard let passType = PassTypeIdentifier(passTypeIdentifier), let serialNumber = SerialNumber(serial),
            let token = try? application.passes.vault.authenticationToken(passType: passType, serial: serialNumber)
        else { return "" }
        return token.rawValue
    }

    /// Creates an event through the admin API and returns its id.
    package func createEvent(name: String = "Swift Night", venue: String = "Tokyo Hall") throws -> String {
        let response = try admin("POST", "/admin/v1/events", json: #"{"name":"\#(name)","venue":"\#(venue)","startsAt":"2027-03-01T19:00:00+09:00","timeZone":"Asia/Tokyo"}"#)
        guard response.status == 201, let id = response.jsonObject?["id"] as? String else {
            throw TestClient.Failure(description: "event not created: \(response.status) \(response.text)")
        }
        return id
    }

    /// Issues a ticket through the admin API and returns its serial number.
    package func issueTicket(event: String, attendee: String = "Ada Lovelace", seat: String? = "A1") throws -> String {
        let seatJSON = seat.map { #","seat":"\#($0)""# } ?? ""
        let response = try admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"\#(attendee)"\#(seatJSON)}"#)
        guard response.status == 201, let serial = response.jsonObject?["serialNumber"] as? String else {
            throw TestClient.Failure(description: "ticket not issued: \(response.status) \(response.text)")
        }
        return serial
    }
}

/// A wall clock a test moves forward: the real time plus an offset.
package final class MovableClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    package init() {}

    package func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// Sets the clock `seconds` ahead of the real time.
    package func set(ahead seconds: TimeInterval) { offset.withLock { $0 = seconds } }
}

extension TestResponse {
    /// The body as a JSON object, if it is one.
    package var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }
}

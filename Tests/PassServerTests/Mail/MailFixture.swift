import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// A running application that emails through a real SMTP server (aiosmtpd) on a loopback port:
/// STARTTLS with the test CA's certificate, required, unless the behaviour offers no TLS.
struct MailFixture {
    let smtp: TestSMTPServer
    let app: TestApp

    static let from = "Example Events <tickets@events.example.org>"
    static let replyTo = "help@events.example.org"

    /// Retries come after fractions of a second, so a test sees them.
    static func start(
        _ backend: Backend, _ behaviour: TestSMTPServer.Behaviour = .init(tls: true, requireTLS: true), rate: Double = 500, port: Int = 0,
        configure: (inout Configuration) -> Void = { _ in }
    ) throws -> MailFixture {
        let directory = try TestCertificates.temporaryDirectory(prefix: "mail-fixture")
        let certificates = try TestCertificates.make(in: directory)
        let smtp = try TestSMTPServer(behaviour, certificates: certificates, in: directory, port: port)
        let app = try TestApp.start(backend, certificates: certificates) { configuration in
            configuration.mail.smtpURL = behaviour.auth.map { smtp.url(user: $0.user, password: $0.password) } ?? smtp.url()
            configuration.mail.allowPlaintext = !behaviour.tls
            configuration.mail.caFile = smtp.caFile
            configuration.mail.from = from
            configuration.mail.replyTo = replyTo
            configuration.mail.rate = rate
            configuration.mail.retryBaseDelay = 0.2
            configuration.mail.retryMaxDelay = 0.5
            configure(&configuration)
        }
        return MailFixture(smtp: smtp, app: app)
    }

    func stop() {
        app.stop()
        smtp.stop()
    }

    /// Creates an event (JSON fields added to the usual ones) and returns its id.
    func createEvent(_ extra: String = "") throws -> String {
        let response = try app.admin("POST", "/admin/v1/events", json: """
            {"name":"Swift Night","venue":"Tokyo Hall","startsAt":"2027-03-01T19:00:00+09:00","timeZone":"Asia/Tokyo"\(extra)}
            """)
        guard response.status == 201, let id = response.jsonObject?["id"] as? String else {
            throw TestClient.Failure(description: "event not created: \(response.status) \(response.text)")
        }
        return id
    }

    /// Imports `count` tickets with addresses `guest<i>@example.com` in one batch; returns their serials in order.
    func importGuests(_ count: Int, event: String, notify: Bool = false) throws -> [String] {
        let rows = (0..<count).map { #"{"attendeeName":"Guest \#($0)","attendeeEmail":"guest\#($0)@example.com"}"# }
        let response = try app.admin("POST", "/admin/v1/events/\(event)/tickets:batch\(notify ? "?notify=true" : "")", json: "[" + rows.joined(separator: ",") + "]")
        guard response.status == 200, let tickets = response.jsonObject?["tickets"] as? [[String: Any]] else {
            throw TestClient.Failure(description: "import failed: \(response.status) \(response.text)")
        }
        return tickets.compactMap { $0["serialNumber"] as? String }
    }

    /// The ticket's `emailStatus` as the API shows it (nil when absent).
    func emailStatus(_ serial: String) throws -> [String: Any]? {
        try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["emailStatus"] as? [String: Any]
    }

    /// Waits until the ticket's email reaches `state` (at most `timeout` seconds; an issue at
    /// `sourceLocation` if it does not); returns its status.
    func waitForEmail(
        _ serial: String, state: String, timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any]? {
        var status: [String: Any]?
        try? await eventually("ticket \(serial)'s email \(state)", timeout: timeout, sourceLocation: sourceLocation) {
            status = try emailStatus(serial)
            return status?["state"] as? String == state
        }
        return status
    }

    /// The value of one series in `/metrics`.
    func metric(_ series: String) throws -> Double? {
        MetricsFamiliesTests.value(series, in: try app.request("GET", "/metrics").text)
    }
}

import Foundation
import Mail
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// An SMTP server that cannot be reached at all (here: stopped, so every connect is refused) is
/// logged at warning when it starts and at notice when it ends, and `/readyz` lists a warning once
/// it has lasted `MAIL_UNREACHABLE_GRACE` while emails are pending; the instance stays ready, and
/// the queued email goes out once the server is back.
@Suite("Email: an unreachable SMTP server shows on /readyz and in the log", .offCooperativePool, .timeLimit(.minutes(4)))
struct MailReachabilityTests {
    /// `/readyz`'s status code and its warnings of component `smtp`.
    static func readiness(_ fixture: MailFixture) throws -> (status: Int, smtp: [String]) {
        let response = try fixture.app.request("GET", "/readyz")
        let warnings = response.jsonObject?["warnings"] as? [[String: Any]] ?? []
        return (response.status, warnings.filter { $0["component"] as? String == "smtp" }.compactMap { $0["message"] as? String })
    }

    static func logged(_ fixture: MailFixture, _ text: String) -> Bool {
        fixture.app.logs.lines.contains { $0.contains(text) }
    }

    @Test("SMTP down: a warning line, /readyz warns (still 200) after the grace, the email stays queued; back up: sent, notice, warning gone",
          arguments: Backend.allCases)
    func unreachableServer(_ backend: Backend) async throws {
        let port = try RestartablePort.free()
        let fixture = try MailFixture.start(backend, port: port) { $0.mail.unreachableGrace = 1 }
        defer { fixture.stop() }
        let event = try fixture.createEvent()

        // Control: with the server up an email goes out, and nothing is reported.
        let first = try #require(try fixture.importGuests(1, event: event, notify: true).first)
        #expect(try await fixture.waitForEmail(first, state: "sent")?["sentCount"] as? Int == 1)
        #expect(try Self.readiness(fixture) == (200, []))
        #expect(!Self.logged(fixture, "SMTP server is unreachable"))

        fixture.smtp.stop()
        let second = try #require(try fixture.importGuests(1, event: event, notify: true).first)
        try await eventually("the outage is logged at warning", timeout: 60) { Self.logged(fixture, "the SMTP server is unreachable") }
        let outageLines = fixture.app.logs.lines.filter { $0.contains("the SMTP server is unreachable") }
        #expect(outageLines.count == 1 && outageLines.allSatisfy { $0.contains(" warning ") }, "one warning line for the outage, not one per attempt: \(outageLines)")
        var readiness = (status: 0, smtp: [String]())
        try await eventually("/readyz warns", timeout: 30) {
            readiness = try Self.readiness(fixture)
            return !readiness.smtp.isEmpty
        }
        #expect(readiness.status == 200, "email does not make the instance unready")
        #expect(readiness.smtp.first?.contains("unreachable for") == true && readiness.smtp.first?.contains("emails are pending") == true, "\(readiness.smtp)")
        #expect(try fixture.emailStatus(second)?["state"] as? String == "queued", "an unreachable server fails no email")

        // The server comes back on the same port: the queued email is sent once and the warning goes.
        let directory = try TestCertificates.temporaryDirectory(prefix: "mail-back")
        let back = try TestSMTPServer(.init(tls: true, requireTLS: true), certificates: fixture.app.certificates, in: directory, port: port)
        defer { back.stop() }
        #expect(try await fixture.waitForEmail(second, state: "sent")?["sentCount"] as? Int == 1)
        try await eventually("the recovery is logged", timeout: 30) { Self.logged(fixture, "the SMTP server is reachable again") }
        #expect(fixture.app.logs.lines.filter { $0.contains("the SMTP server is unreachable") }.count == 1, "the retries while it was down logged nothing more")
        #expect(try Self.readiness(fixture) == (200, []))
        #expect(try back.messages().count == 1)
    }

    @Test("what a delivery says about reaching the server: any reply yes, no reply while connecting no, anything else nothing")
    func reachedServer() {
        let reply = SMTPReply(code: 451, text: "try later")
        #expect(MailDelivery.sent(.accepted(SMTPReply(code: 250, text: "ok"))).reachedServer == true)
        #expect(MailDelivery.sent(.transient(SMTPFailure(stage: .recipient, reply: reply, detail: ""))).reachedServer == true)
        #expect(MailDelivery.sent(.rejected(SMTPFailure(stage: .data, reply: SMTPReply(code: 550, text: "no"), detail: ""))).reachedServer == true)
        #expect(MailDelivery.sent(.transient(SMTPFailure(stage: .connect, reply: nil, detail: "Connection refused"))).reachedServer == false)
        #expect(MailDelivery.sent(.transient(SMTPFailure(stage: .data, reply: nil, detail: "connection lost"))).reachedServer == nil)
        #expect(MailDelivery.sent(.refused(SMTPFailure(stage: .connect, reply: nil, detail: "certificate not trusted"))).reachedServer == nil)
        #expect(MailDelivery.notSent("stopping").reachedServer == nil)
        #expect(MailDelivery.unwritable("no address").reachedServer == nil)
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// The SMTP server refusing us (here: AUTH answered 535) pauses all email for `MAIL_HALT_PAUSE`
/// instead of failing attendees' tickets one after another; one probe after the pause resumes
/// sending, and nothing is sent twice.
@Suite("Email halt when the SMTP server refuses us", .offCooperativePool, .timeLimit(.minutes(5)))
struct MailHaltTests {
    static let haltPause = 4

    /// The messages of `/readyz`'s warnings.
    static func readinessWarnings(_ fixture: MailFixture) throws -> [String] {
        let warnings = try fixture.app.request("GET", "/readyz").jsonObject?["warnings"] as? [[String: Any]] ?? []
        return warnings.compactMap { $0["message"] as? String }
    }

    @Test("AUTH refused: email pauses (tickets stay queued, /readyz and /metrics say so), one probe after the pause, then everything sent once",
          arguments: Backend.allCases)
    func refusedCredentialsPauseEmail(_ backend: Backend) async throws {
        // The account refuses the first login, as a locked account would, and accepts later ones.
        let behaviour = TestSMTPServer.Behaviour(tls: true, requireTLS: true, auth: (user: "tickets", password: "s3cret"), authFailures: 1)
        let fixture = try MailFixture.start(backend, behaviour) { $0.mail.haltPause = Self.haltPause }
        defer { fixture.stop() }
        let event = try fixture.createEvent()

        // The first ticket's message meets the refusal: email halts.
        let first = try fixture.importGuests(1, event: event, notify: true)
        let refusals = try await fixture.smtp.waitForEvents(timeout: 60) { events in events.contains { $0.stage == "AUTH" } }
        let haltedAt = try #require(refusals.first { $0.stage == "AUTH" }?.at)
        try await eventually("the mail dispatcher halts", timeout: 30) { try fixture.metric("passserver_mail_halted") == 1 }
        let warnings = try Self.readinessWarnings(fixture)
        #expect(warnings.contains { $0.contains("email paused") && $0.contains("535") }, "\(warnings)")

        // Tickets issued during the pause wait in the outbox: no message goes out, none is failed.
        let later = try fixture.importGuests(4, event: event, notify: true)
        await AdminSupport.pause(1)
        #expect(Date().timeIntervalSince1970 < haltedAt + Double(Self.haltPause), "the checks below must fall inside the pause")
        #expect(try fixture.smtp.messages().isEmpty)
        for serial in first + later {
            let state = try fixture.emailStatus(serial)?["state"] as? String
            #expect(state == "queued", "\(serial): \(state ?? "nil")")
        }

        // After the pause one probe goes out, is accepted, and sending resumes: five messages, once each.
        let messages = try await fixture.smtp.waitForMessages(5, timeout: 60)
        #expect(messages.allSatisfy { $0.at >= haltedAt + Double(Self.haltPause) - 0.5 }, "a message left during the pause")
        #expect(messages.flatMap { $0.rcptTos ?? [] }.sorted() == (["guest0@example.com"] + (0..<4).map { "guest\($0)@example.com" }).sorted())
        for serial in first + later {
            let status = try await fixture.waitForEmail(serial, state: "sent")
            #expect(status?["sentCount"] as? Int == 1, "\(serial)")
        }
        try await eventually("the halt ends", timeout: 30) { try fixture.metric("passserver_mail_halted") == 0 }
        let after = try Self.readinessWarnings(fixture)
        #expect(!after.contains { $0.contains("email paused") }, "\(after)")
        await AdminSupport.pause(1)
        #expect(try fixture.smtp.events().filter { $0.stage == "AUTH" }.count == 1)
        #expect(try fixture.smtp.messages().count == 5)
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// An event send end to end: a job that queues every ticket's email, paced by `MAIL_RATE`, each
/// message sent once; a second send sends nothing; refused recipients fail alone.
@Suite("Event emails", .offCooperativePool, .timeLimit(.minutes(8)))
struct EventEmailTests {
    /// The job of an event send, polled until `condition` holds (at most `timeout` seconds; an
    /// issue at `sourceLocation` if it does not).
    static func waitForJob(
        _ fixture: MailFixture, _ id: String, timeout: TimeInterval = 120, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        var job: [String: Any] = [:]
        try? await eventually("job \(id): \(job)", timeout: timeout, sourceLocation: sourceLocation) {
            job = try fixture.app.admin("GET", "/admin/v1/jobs/\(id)").jsonObject ?? [:]
            return condition(job)
        }
        return job
    }

    static func emails(_ job: [String: Any]) -> [String: Int] {
        (job["emails"] as? [String: Int]) ?? [:]
    }

    @Test("500 tickets: 500 messages, each once, paced by MAIL_RATE; a second send sends none", arguments: Backend.allCases)
    func fiveHundred(_ backend: Backend) async throws {
        let rate = 100.0
        let fixture = try MailFixture.start(backend, rate: rate)
        defer { fixture.stop() }
        let event = try fixture.createEvent()
        _ = try fixture.importGuests(500, event: event)
        // One ticket without an address is skipped.
        _ = try fixture.app.issueTicket(event: event)

        let asked = Date().timeIntervalSince1970
        let started = try fixture.app.admin("POST", "/admin/v1/events/\(event)/email")
        #expect(started.status == 202)
        let jobID = try #require(started.jsonObject?["id"] as? String)
        #expect(started.jsonObject?["kind"] as? String == "email" && started.jsonObject?["total"] as? Int == 500)
        let job = try await Self.waitForJob(fixture, jobID) { Self.emails($0)["sent"] == 500 }
        #expect(job["state"] as? String == "done" && job["total"] as? Int == 500 && job["done"] as? Int == 500)
        #expect(Self.emails(job) == ["queued": 0, "sent": 500, "failed": 0])

        let messages = try fixture.smtp.messages()
        let recipients = messages.flatMap { $0.rcptTos ?? [] }
        #expect(recipients.count == 500 && Set(recipients) == Set((0..<500).map { "guest\($0)@example.com" }))
        // Paced: a burst of a fifth of a second's worth, then `rate` a second, from the moment the
        // send was asked for. A loaded machine only stretches this; nothing can make it faster.
        let times = messages.map(\.at).sorted()
        let burst = MailPacing(rate: rate).burst
        let elapsed = (times.last ?? 0) - asked
        #expect(elapsed >= (500 - burst) / rate * 0.95, "500 messages \(elapsed) s after the send at \(rate) a second")
        // The sender starts one message every 1/rate seconds at most, however the server's answers
        // bunch up; what the server records can only be later. A second holds `rate` starts, and
        // a few more whose recording a busy machine moved into it.
        let busiest = times.indices.map { start in times[start...].prefix { $0 < times[start] + 1 }.count }.max() ?? 0
        #expect(Double(busiest) <= rate + burst, "\(busiest) messages in one second")
        print("\(backend): 500 emails at MAIL_RATE \(Int(rate)): last \(elapsed) s after the send, at most \(busiest) in one second")

        let counts = try fixture.app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["emailStatus"] as? [String: Int]
        #expect(counts == ["queued": 0, "sent": 500, "failed": 0])

        // Without resend: nothing left to send.
        let again = try fixture.app.admin("POST", "/admin/v1/events/\(event)/email", json: #"{"resend":false}"#)
        #expect(again.status == 202 && again.jsonObject?["total"] as? Int == 0)
        let secondID = try #require(again.jsonObject?["id"] as? String)
        let second = try await Self.waitForJob(fixture, secondID) { $0["state"] as? String == "done" }
        #expect(second["done"] as? Int == 0)
        await AdminSupport.pause(1.5)
        #expect(try fixture.smtp.messages().count == 500)
        #expect(try fixture.metric(#"passserver_emails_total{outcome="sent"}"#) == 500)
    }

    @Test("resend: every ticket's email once more", arguments: [Backend.postgres])
    func resend(_ backend: Backend) async throws {
        let fixture = try MailFixture.start(backend)
        defer { fixture.stop() }
        let event = try fixture.createEvent()
        let serials = try fixture.importGuests(3, event: event, notify: true)
        _ = try await fixture.smtp.waitForMessages(3, timeout: 60)
        // The server records a message as sent just after the SMTP server has it: resend once all
        // three are recorded, not while one is still in the outbox.
        for serial in serials { _ = try await fixture.waitForEmail(serial, state: "sent") }
        let resend = try fixture.app.admin("POST", "/admin/v1/events/\(event)/email", json: #"{"resend":true}"#)
        #expect(resend.status == 202 && resend.jsonObject?["kind"] as? String == "email-resend" && resend.jsonObject?["total"] as? Int == 3)
        let messages = try await fixture.smtp.waitForMessages(6, timeout: 60)
        #expect(Dictionary(grouping: messages.flatMap { $0.rcptTos ?? [] }, by: { $0 }).values.allSatisfy { $0.count == 2 })
        let status = try #require(try await fixture.waitForEmail(serials[0], state: "sent"))
        try? await eventually("sent twice") { try fixture.emailStatus(serials[0])?["sentCount"] as? Int == 2 }
        #expect(try fixture.emailStatus(serials[0])?["sentCount"] as? Int == 2, "\(status)")
    }

    @Test("550 for ten recipients: those tickets failed with the server's reply, the others sent", arguments: Backend.allCases)
    func refusedRecipients(_ backend: Backend) async throws {
        let refused = (0..<10).map { "guest\($0 * 3)@example.com" }
        let fixture = try MailFixture.start(backend, .init(refuse: refused, tls: true, requireTLS: true))
        defer { fixture.stop() }
        let event = try fixture.createEvent()
        let serials = try fixture.importGuests(30, event: event, notify: true)
        let counts = try await { () async throws -> [String: Int] in
            var counts: [String: Int] = [:]
            try? await eventually("20 sent, 10 failed", timeout: 120) {
                counts = try fixture.app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["emailStatus"] as? [String: Int] ?? [:]
                return counts["sent"] == 20 && counts["failed"] == 10
            }
            return counts
        }()
        #expect(counts == ["queued": 0, "sent": 20, "failed": 10])
        for (index, serial) in serials.enumerated() {
            let status = try #require(try fixture.emailStatus(serial))
            if index.isMultiple(of: 3) {
                #expect(status["state"] as? String == "failed")
                #expect(status["reply"] as? String == "550 5.1.1 <guest\(index)@example.com>: Recipient address rejected: User unknown")
                #expect(status["failedAt"] is String && status["sentCount"] as? Int == 0)
            } else {
                #expect(status["state"] as? String == "sent")
            }
        }
        #expect(Set(try fixture.smtp.messages().flatMap { $0.rcptTos ?? [] }).isDisjoint(with: refused))
        #expect(try fixture.metric(#"passserver_emails_failed_total{reason="rejected"}"#) == 10)
        // Nothing is retried: the refusals were answered once each.
        await AdminSupport.pause(1)
        #expect(try fixture.smtp.events().count { $0.kind == "refused" } == 10)
    }
}

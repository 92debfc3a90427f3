import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// A ticket's email end to end, through a real SMTP server: issued with `notify: true`, sent once,
/// with a link that opens the ticket, the right headers and parts; hostile names; the server's
/// temporary and permanent refusals.
@Suite("Ticket emails", .offCooperativePool, .timeLimit(.minutes(5)))
struct TicketEmailTests {
    static let linkPattern = #"https://passes\.example\.test/download/[A-Za-z0-9_-]+"#

    static func links(in text: String) -> [String] {
        let regex = try? NSRegularExpression(pattern: linkPattern)
        let range = NSRange(text.startIndex..., in: text)
        return regex?.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } } ?? []
    }

    @Test("notify: true sends one message: From, Reply-To, both parts, the Japanese subject encoded, a link that opens the ticket", arguments: Backend.allCases)
    func notifyOnIssue(_ backend: Backend) async throws {
        let fixture = try MailFixture.start(backend)
        defer { fixture.stop() }
        let event = try fixture.createEvent(#","language":"ja""#)
        let response = try fixture.app.admin("POST", "/admin/v1/events/\(event)/tickets", json: """
            {"attendeeName":"山田 太郎","attendeeEmail":"taro@example.com","seat":"B7","notify":true}
            """)
        #expect(response.status == 201)
        let serial = try #require(response.jsonObject?["serialNumber"] as? String)
        let downloadURL = try #require(response.jsonObject?["downloadURL"] as? String)

        let messages = try await fixture.smtp.waitForMessages(1, timeout: 60)
        let message = try #require(messages.first)
        #expect(message.rcptTos == ["taro@example.com"] && message.mailFrom == "tickets@events.example.org")
        #expect(message.tls == true)
        let parsed = try #require(message.parsed)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.decoded["From"] == "Example Events <tickets@events.example.org>")
        #expect(parsed.decoded["Reply-To"] == "help@events.example.org")
        #expect(parsed.decoded["To"] == "山田 太郎 <taro@example.com>")
        let rawSubject = try #require(parsed.raw("Subject").first)
        #expect(rawSubject.hasPrefix("=?UTF-8?B?") && rawSubject.utf8.allSatisfy { $0 < 0x80 }, "\(rawSubject)")
        #expect(parsed.decoded["Subject"] == "【Swift Night】チケットのご案内")
        #expect(parsed.contentType == "multipart/alternative")
        #expect(parsed.parts.map(\.type) == ["text/plain", "text/html"])
        let text = try #require(parsed.part("text/plain"))
        let html = try #require(parsed.part("text/html"))
        #expect(text.contains("山田 太郎 様") && text.contains("2027年3月1日") && text.contains("19:00") && text.contains("Tokyo Hall") && text.contains("B7"))

        // The link in both parts is the ticket's download link, and it opens the ticket.
        #expect(Self.links(in: text) == [downloadURL])
        #expect(Self.links(in: html) == [downloadURL])
        let fetched = try fixture.app.request("GET", try AdminSupport.path(of: downloadURL))
        #expect(fetched.status == 200)
        #expect(fetched.header("Content-Type") == "application/vnd.apple.pkpass")
        #expect(try PassArchive.passJSON(fetched.body)["serialNumber"] as? String == serial)

        let status = try #require(try await fixture.waitForEmail(serial, state: "sent"))
        #expect(status["sentCount"] as? Int == 1)
        #expect((status["reply"] as? String)?.hasPrefix("250") == true)
        #expect(status["sentAt"] is String)
        // Still one message a while later: nothing was sent twice.
        await AdminSupport.pause(1.5)
        #expect(try fixture.smtp.messages().count == 1)
        #expect(try fixture.metric(#"passserver_emails_total{outcome="sent"}"#) == 1)
    }

    @Test("a name with CR/LF and <script>: the headers stay intact, the HTML escapes it", arguments: Backend.allCases)
    func hostileName(_ backend: Backend) async throws {
        let fixture = try MailFixture.start(backend)
        defer { fixture.stop() }
        let event = try fixture.createEvent()
        // The API refuses control characters in names; data from elsewhere (an older import, the
        // database) may still hold them.
        var pass = try AdminSupport.newPass(
            event: event, vault: fixture.app.application.passes.vault, passType: fixture.app.passTypeIdentifier,
            attendee: "Eve\r\nBcc: victim@example.com\r\n\r\n<script>alert(1)</script>"
        )
        pass.attendeeEmail = "eve@example.com"
        let stored = try fixture.app.store.withSession(.write) { try $0.passes.insertPass(pass, now: Date()) }
        #expect(try fixture.app.admin("POST", "/admin/v1/tickets/\(stored.serialNumber)/email").status == 202)
        // And one through the API, with markup in the name and the venue.
        let response = try fixture.app.admin("POST", "/admin/v1/events/\(event)/tickets", json: """
            {"attendeeName":"<img src=x onerror=alert(2)> & Co","attendeeEmail":"co@example.com","notify":true}
            """)
        #expect(response.status == 201)

        let messages = try await fixture.smtp.waitForMessages(2, timeout: 60)
        #expect(messages.count == 2)
        for message in messages {
            let parsed = try #require(message.parsed)
            #expect(parsed.defects.isEmpty)
            #expect(parsed.headers.count == 8, "\(parsed.headers.map { $0.first ?? "" })")
            #expect(parsed.raw("Bcc").isEmpty)
            #expect(message.rcptTos?.count == 1)
            let html = try #require(parsed.part("text/html"))
            #expect(!html.contains("<script") && !html.contains("<img"))
        }
        let eve = try #require(messages.first { $0.rcptTos == ["eve@example.com"] }?.parsed)
        #expect(eve.decoded["To"] == #""Eve Bcc: victim@example.com <script>alert(1)</script>" <eve@example.com>"#)
        #expect(eve.part("text/html")?.contains("Hello Eve Bcc: victim@example.com &lt;script&gt;alert(1)&lt;/script&gt;,") == true)
        let company = try #require(messages.first { $0.rcptTos == ["co@example.com"] }?.parsed)
        #expect(company.part("text/html")?.contains("Hello &lt;img src=x onerror=alert(2)&gt; &amp; Co,") == true)
    }

    @Test("451 twice, then accepted: sent after the retries, once", arguments: Backend.allCases)
    func temporaryFailures(_ backend: Backend) async throws {
        let fixture = try MailFixture.start(backend, .init(tempfail: ["grey@example.com": 2], tls: true, requireTLS: true))
        defer { fixture.stop() }
        let event = try fixture.createEvent()
        let response = try fixture.app.admin("POST", "/admin/v1/events/\(event)/tickets", json: """
            {"attendeeName":"Grey","attendeeEmail":"grey@example.com","notify":true}
            """)
        let serial = try #require(response.jsonObject?["serialNumber"] as? String)
        let status = try #require(try await fixture.waitForEmail(serial, state: "sent"))
        #expect(status["sentCount"] as? Int == 1)
        let events = try fixture.smtp.events()
        #expect(events.map(\.kind) == ["refused", "refused", "message"])
        #expect(events.prefix(2).allSatisfy { $0.reply?.hasPrefix("451 4.7.1") == true })
        #expect(try fixture.metric(#"passserver_emails_total{outcome="retried"}"#) == 2)
        #expect(try fixture.metric(#"passserver_emails_total{outcome="sent"}"#) == 1)
    }

    @Test("email off: sends are refused with 409 and nothing is issued for notify", arguments: [Backend.sqlite])
    func emailOff(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let refused = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"A","attendeeEmail":"a@example.com","notify":true}"#)
        #expect(refused.status == 409)
        #expect((refused.jsonObject?["error"] as? [String: Any])?["code"] as? String == "email_disabled")
        #expect(try app.admin("POST", "/admin/v1/tickets/\(serial)/email").status == 409)
        #expect(try app.admin("POST", "/admin/v1/events/\(event)/email").status == 409)
        let list = try app.admin("GET", "/admin/v1/events/\(event)/tickets").jsonObject?["tickets"] as? [[String: Any]]
        #expect(list?.count == 1, "the refused notify issued no ticket")
        let metrics = try app.request("GET", "/metrics").text
        #expect(MetricsFamiliesTests.value("passserver_mail_enabled", in: metrics) == 0)
    }

    @Test("what cannot be emailed is named: no address, cancelled, notify without an address", arguments: [Backend.sqlite])
    func refusals(_ backend: Backend) async throws {
        let fixture = try MailFixture.start(backend)
        defer { fixture.stop() }
        let event = try fixture.createEvent()
        let serial = try fixture.app.issueTicket(event: event)
        let noAddress = try fixture.app.admin("POST", "/admin/v1/tickets/\(serial)/email")
        #expect(noAddress.status == 409 && (noAddress.jsonObject?["error"] as? [String: Any])?["code"] as? String == "no_email_address")
        let notify = try fixture.app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"A","notify":true}"#)
        #expect(notify.status == 400 && notify.text.contains("notify: needs attendeeEmail"))
        #expect(try fixture.app.admin("POST", "/admin/v1/tickets/\(serial)/cancel").status == 200)
        #expect(try fixture.app.admin("POST", "/admin/v1/tickets/\(serial)/email").status == 409)
        #expect(try fixture.app.admin("POST", "/admin/v1/events/\(event)/email", json: #"{"resend":"yes"}"#).status == 400)
        // Nothing reached the SMTP server, which does record what is sent: a control ticket's
        // email, issued after the refusals, arrives, and it is the only event there.
        let control = try fixture.app.admin(
            "POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Control","attendeeEmail":"control@example.com","notify":true}"#
        )
        #expect(control.status == 201, "\(control.text)")
        _ = try await fixture.smtp.waitForMessages(1, timeout: 60)
        await AdminSupport.pause(1)
        let events = try fixture.smtp.events()
        #expect(events.map(\.kind) == ["message"], "\(events.map { "\($0.kind) \($0.rcptTos ?? [])" })")
        #expect(events.first?.rcptTos == ["control@example.com"])
    }
}

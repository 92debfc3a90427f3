import Foundation
import Mail
import PassBundle
import PassServerTesting
import Testing

@testable import PassServer

/// The ticket email as the event-ticket template writes it: the language chosen, the date in the
/// event's time zone, every value escaped, the link to the attendee's page.
@Suite("Ticket email texts", .offCooperativePool)
struct TicketMailTests {
    static let template: Result<Template, PassBundleError> = Result { () throws(PassBundleError) in
        try Template.load(directory: PassServerExecutable.packageRoot.appendingPathComponent("Passes/event-ticket").path)
    }

    static func ticket(name: String = "Ada Lovelace", language: String? = nil, eventLanguage: String = "en") -> TicketMail.Ticket {
        TicketMail.Ticket(
            serialNumber: "SERIAL123", attendeeName: name, attendeeEmail: "ada@example.com", seat: "A1", language: language,
            eventName: "Swift Night", venue: "Tokyo Hall", startsAt: Date(timeIntervalSince1970: 1_803_895_200), timeZone: "Asia/Tokyo",
            template: "event-ticket", eventLanguage: eventLanguage, ticketURL: "https://passes.example.test/download/TOKEN"
        )
    }

    static var mail: TicketMail {
        get throws {
            TicketMail(from: try MailAddress.parse("Example Events <tickets@example.org>"), replyTo: nil, organizationName: "Example Events")
        }
    }

    @Test("the template's texts are no part of the pass, and both languages parse")
    func textsApart() throws {
        let template = try Self.template.get()
        #expect(!template.filePaths.contains { $0.hasPrefix("mail/") })
        #expect(try TicketMail.texts(of: template).keys.sorted() == ["en", "ja"])
    }

    @Test("English by default: name, event, date and time in the event's zone, venue, seat, link")
    func english() throws {
        let message = try Self.mail.message(for: Self.ticket(), template: try Self.template.get(), now: Date())
        #expect(message.subject == "Your ticket for Swift Night")
        #expect(message.to.headerValue == "Ada Lovelace <ada@example.com>")
        // 1_803_895_200 is 2027-03-01 10:00 UTC: 19:00 in Tokyo.
        #expect(message.text.contains("Hello Ada Lovelace,"))
        #expect(message.text.contains("March 1, 2027") && message.text.contains("7:00"))
        #expect(message.text.contains("(Asia/Tokyo)") && message.text.contains("Tokyo Hall") && message.text.contains("A1"))
        #expect(message.text.contains("https://passes.example.test/download/TOKEN"))
        #expect(message.html.contains("href=\"https://passes.example.test/download/TOKEN\""))
    }

    @Test("the ticket's language wins over the event's; an unknown language falls back to its primary tag, then English")
    func languages() throws {
        let template = try Self.template.get()
        let japanese = try Self.mail.message(for: Self.ticket(eventLanguage: "ja"), template: template, now: Date())
        #expect(japanese.subject == "【Swift Night】チケットのご案内")
        #expect(japanese.text.contains("2027年3月1日") && japanese.text.contains("19:00"))
        let overridden = try Self.mail.message(for: Self.ticket(language: "en", eventLanguage: "ja"), template: template, now: Date())
        #expect(overridden.subject == "Your ticket for Swift Night")
        let regional = try Self.mail.message(for: Self.ticket(language: "ja-JP"), template: template, now: Date())
        #expect(regional.subject.hasSuffix("チケットのご案内"))
        let unknown = try Self.mail.message(for: Self.ticket(language: "fr"), template: template, now: Date())
        #expect(unknown.subject == "Your ticket for Swift Night")
    }

    @Test("a hostile name: HTML escaped, one line everywhere")
    func hostileName() throws {
        let name = "Eve\r\nBcc: victim@example.com <script>alert(1)</script>"
        let message = try Self.mail.message(for: Self.ticket(name: name), template: try Self.template.get(), now: Date())
        #expect(message.html.contains("Hello Eve Bcc: victim@example.com &lt;script&gt;alert(1)&lt;/script&gt;,"))
        #expect(!message.html.contains("<script"))
        #expect(message.to.displayName == "Eve Bcc: victim@example.com <script>alert(1)</script>")
        #expect(message.text.contains("Hello Eve Bcc: victim@example.com <script>alert(1)</script>,\n"))
    }

    @Test("a template without email texts, or with a broken one, is named in the error")
    func missingTexts() throws {
        let icon = try Self.template.get()
        let bare = try Template(name: "bare", files: ["pass.json": Array("{}".utf8), "icon.png": [0]])
        #expect(throws: MailError.self) { try Self.mail.message(for: Self.ticket(), template: bare, now: Date()) }
        let broken = try Template(name: "broken", files: [
            "pass.json": Array("{}".utf8), "icon.png": [0], "mail/en/subject.txt": Array("{{unknown}}".utf8),
            "mail/en/body.txt": [], "mail/en/body.html": [],
        ])
        #expect {
            try TicketMail.texts(of: broken)
        } throws: { error in
            (error as? MailError)?.message.contains("template broken: mail/en: subject: unknown placeholder {{unknown}}") == true
        }
        #expect(!icon.mailFiles.isEmpty)
    }
}

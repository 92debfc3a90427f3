import Foundation
import Mail
import PassBundle
import PassServerTesting
import Testing

@testable import PassServer

/// The order email as the event-ticket template writes it: one message listing each ticket with
/// its own link, linking the order's page, in the order's (or event's) language, every value escaped.
@Suite("Order email texts", .offCooperativePool)
struct OrderMailTests {
    static func order(buyerName: String? = "Bea Buyer", language: String? = nil, eventLanguage: String = "en", names: [String]) -> OrderMail.Order {
        OrderMail.Order(
            buyerName: buyerName, buyerEmail: "bea@example.com", language: language, eventName: "Swift Night", venue: "Tokyo Hall",
            startsAt: Date(timeIntervalSince1970: 1_803_895_200), timeZone: "Asia/Tokyo", eventLanguage: eventLanguage,
            orderURL: "https://passes.example.test/orders/ORDERTOKEN",
            tickets: names.enumerated().map { index, name in
                OrderMail.Ticket(
                    serialNumber: "S\(index)", attendeeName: name, seat: index == 0 ? nil : "B\(index)",
                    ticketURL: "https://passes.example.test/download/T\(index)"
                )
            }
        )
    }

    static var mail: OrderMail {
        get throws { OrderMail(from: try MailAddress.parse("Example Events <tickets@example.org>"), replyTo: nil, organizationName: "Example Events") }
    }

    @Test("both languages' order texts parse, and are no part of the pass")
    func texts() throws {
        let template = try TicketMailTests.template.get()
        #expect(try OrderMail.texts(of: template).keys.sorted() == ["en", "ja"])
        #expect(!template.filePaths.contains { $0.hasPrefix("mail/") })
    }

    @Test("one message: the buyer, every ticket with its seat and link, the order's page; values escaped")
    func english() throws {
        let names = ["Ada Lovelace", "<img src=x onerror=alert(1)>", "Eve\r\nBcc: victim@example.com"]
        let message = try Self.mail.message(for: Self.order(names: names), template: try TicketMailTests.template.get(), now: Date())
        #expect(message.subject == "Your tickets for Swift Night")
        #expect(message.to.headerValue == "Bea Buyer <bea@example.com>")
        #expect(message.text.contains("Hello Bea Buyer,") && message.text.contains("https://passes.example.test/orders/ORDERTOKEN"))
        #expect(message.text.contains("- Ada Lovelace, seat —\n  https://passes.example.test/download/T0"))
        #expect(message.text.contains("- <img src=x onerror=alert(1)>, seat B1\n  https://passes.example.test/download/T1"))
        #expect(message.text.contains("- Eve Bcc: victim@example.com, seat B2"), "a name stays on its line")
        #expect(message.html.contains(#"href="https://passes.example.test/orders/ORDERTOKEN""#))
        #expect(message.html.contains("&lt;img src=x onerror=alert(1)&gt;") && !message.html.contains("<img"))
        for index in 0..<3 { #expect(message.html.contains(#"<a href="https://passes.example.test/download/T\#(index)">Ticket</a>"#)) }
        let anonymous = try Self.mail.message(for: Self.order(buyerName: nil, names: ["A"]), template: try TicketMailTests.template.get(), now: Date())
        #expect(anonymous.to.headerValue == "bea@example.com" && anonymous.text.hasPrefix("Hello,") && anonymous.subject == "Your tickets for Swift Night")
    }

    @Test("the order's language, else the event's")
    func languages() throws {
        let template = try TicketMailTests.template.get()
        let japanese = try Self.mail.message(for: Self.order(eventLanguage: "ja", names: ["山田 太郎", "山田 花子"]), template: template, now: Date())
        #expect(japanese.subject == "【Swift Night】チケット2枚のご案内")
        #expect(japanese.text.contains("Bea Buyer 様") && japanese.text.contains("・山田 太郎(座席: —)") && japanese.text.contains("2027年3月1日"))
        let english = try Self.mail.message(for: Self.order(language: "en", eventLanguage: "ja", names: ["A"]), template: template, now: Date())
        #expect(english.subject == "Your tickets for Swift Night")
    }
}

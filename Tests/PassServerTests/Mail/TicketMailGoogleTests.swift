import Foundation
import Mail
import PassServerTesting
import Testing

@testable import PassServer

/// The ticket email's "Add to Google Wallet" link: in the plain text and the HTML of every
/// language the event-ticket template has when Google Wallet is on, nowhere when it is off; the
/// link is our route below the download link, never Google's save link.
@Suite("Ticket email: the Google Wallet link", .offCooperativePool, .timeLimit(.minutes(2)))
struct TicketMailGoogleTests {
    static let link = "https://passes.example.test/download/TOKEN/google-wallet"
    static let labels = ["en": "Add to Google Wallet", "ja": "Google ウォレットに追加"]

    @Test("with Google Wallet on, every language's text and HTML carry the link; off, neither mentions Google")
    func link() throws {
        let template = try TicketMailTests.template.get()
        let languages = try TicketMail.texts(of: template).keys.sorted()
        #expect(languages == ["en", "ja"])
        var on = try TicketMailTests.mail
        on.googleWallet = true
        let off = try TicketMailTests.mail
        for language in languages {
            let ticket = TicketMailTests.ticket(language: language)
            let with = try on.message(for: ticket, template: template, now: Date())
            #expect(with.text.contains("\n" + Self.link + "\n"), "\(language): the plain text has the link on its own line")
            #expect(with.html.contains(#"<a href="\#(Self.link)""#), "\(language): the HTML links it")
            #expect(with.html.contains(try #require(Self.labels[language])), "\(language): the button says so in the language")
            #expect(!with.text.contains("savetowallet") && !with.html.contains("savetowallet"))
            #expect(with.text.contains(ticket.ticketURL), "\(language): the Apple link stays")

            let without = try off.message(for: ticket, template: template, now: Date())
            #expect(without.text.contains(ticket.ticketURL), "\(language): the message was written")
            #expect(!without.text.contains("google-wallet") && !without.html.contains("google-wallet"))
            #expect(!without.text.contains("Google") && !without.html.contains("Google"), "\(language): no Google text")
            #expect(!without.text.contains("{{") && !without.html.contains("{{"))
        }
    }

    @Test("the link is the route below the download link, with or without a trailing slash")
    func route() {
        #expect(TicketMail.googleWalletURL(ticketURL: "https://p.example/download/TOKEN") == "https://p.example/download/TOKEN/google-wallet")
        #expect(TicketMail.googleWalletURL(ticketURL: "https://p.example/download/TOKEN/") == "https://p.example/download/TOKEN/google-wallet")
    }
}

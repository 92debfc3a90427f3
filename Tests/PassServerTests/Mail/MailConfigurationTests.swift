import Foundation
import Mail
import PassServerTesting
import Testing

@testable import PassServer

/// The mail settings: off without SMTP_URL, and every problem of the SMTP URL, the password and
/// the addresses reported at start.
@Suite("Mail configuration", .offCooperativePool)
struct MailConfigurationTests {
    @Test("email is off by default; SMTP_URL with MAIL_FROM turns it on")
    func onAndOff() throws {
        let off = try Configuration.load(environment: [:])
        #expect(!off.mail.isEnabled)
        #expect(try off.mail.smtp() == nil)
        let on = try Configuration.load(environment: [
            "SMTP_URL": "smtp://mailer@mail.example.org:587", "SMTP_PASSWORD": "secret", "MAIL_FROM": "Example Events <tickets@example.org>",
            "MAIL_REPLY_TO": "help@example.org", "MAIL_RATE": "2.5",
        ])
        let smtp = try #require(try on.mail.smtp())
        #expect(smtp.security == .requireStartTLS)
        #expect(smtp.username == "mailer" && smtp.password == "secret")
        #expect(on.mail.rate == 2.5)
        let addresses = try on.mail.addresses()
        #expect(addresses.from.headerValue == "Example Events <tickets@example.org>")
        #expect(addresses.replyTo?.address == "help@example.org")
        let plaintext = try Configuration.load(environment: ["SMTP_URL": "smtp://127.0.0.1:2525", "SMTP_ALLOW_PLAINTEXT": "true", "MAIL_FROM": "a@example.org"])
        #expect(try plaintext.mail.smtp()?.security == .startTLSIfOffered)
    }

    @Test("every mail problem is named together")
    func problems() {
        #expect {
            _ = try Configuration.load(environment: [
                "SMTP_URL": "smtp://user:pw@mail.example.org", "SMTP_PASSWORD": "again", "MAIL_REPLY_TO": "not an address",
                "MAIL_RATE": "0", "SMTP_CA_FILE": "/nonexistent/ca.pem",
            ])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            let text = error.description
            return text.contains("SMTP_URL: holds a password and SMTP_PASSWORD is set too") && text.contains("MAIL_FROM: required with SMTP_URL")
                && text.contains("MAIL_REPLY_TO:") && text.contains("MAIL_RATE:") && text.contains("SMTP_CA_FILE: cannot read")
        }
        #expect(throws: ConfigurationError.self) {
            _ = try Configuration.load(environment: ["SMTP_URL": "http://mail.example.org", "MAIL_FROM": "a@example.org"])
        }
        #expect(throws: ConfigurationError.self) {
            _ = try Configuration.load(environment: ["SMTP_URL": "smtp://mail.example.org", "MAIL_FROM": "Name <bad address>"])
        }
    }
}

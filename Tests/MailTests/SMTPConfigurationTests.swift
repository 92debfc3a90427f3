import PassServerTesting
import Testing

@testable import Mail

/// `SMTP_URL` as `SMTPConfiguration` reads it, and the transcript that tells which step a reply answers.
@Suite("SMTP configuration and transcript", .offCooperativePool)
struct SMTPConfigurationTests {
    @Test("smtp:// requires STARTTLS unless plaintext is allowed; smtps:// is TLS from the first byte")
    func security() throws {
        #expect(try SMTPConfiguration(url: "smtp://mail.example.org:587").security == .requireStartTLS)
        #expect(try SMTPConfiguration(url: "smtp://mail.example.org", allowPlaintext: true).security == .startTLSIfOffered)
        #expect(try SMTPConfiguration(url: "SMTPS://mail.example.org").security == .implicitTLS)
        for bad in ["http://mail.example.org", "mail.example.org:25", "smtp://", "smtp://host/?a=b", "smtp://host:0", "smtp://host#x"] {
            #expect(throws: MailError.self, "\(bad)") { try SMTPConfiguration(url: bad) }
        }
    }

    @Test("credentials: percent-decoded from the URL, or the password apart; the URL kept has none")
    func credentials() throws {
        let inURL = try SMTPConfiguration(url: "smtp://mailer%40example.org:p%40ss%3Aw@mail.example.org:587/client.example.org")
        #expect(inURL.username == "mailer@example.org")
        #expect(inURL.password == "p@ss:w")
        #expect(inURL.url == "smtp://mail.example.org:587/client.example.org")
        let apart = try SMTPConfiguration(url: "smtps://mailer@mail.example.org", password: "secret")
        #expect(apart.username == "mailer" && apart.password == "secret")
        #expect(apart.url == "smtps://mail.example.org")
        #expect(throws: MailError.self) { try SMTPConfiguration(url: "smtp://u:p@mail.example.org", password: "again") }
        #expect(throws: MailError.self) { try SMTPConfiguration(url: "smtp://mail.example.org", password: "nobody's") }
    }

    @Test("the transcript: the first negative reply and its step decide; QUIT's reply is ignored; multi-line replies join")
    func transcript() {
        var transcript = SMTPTranscript()
        transcript.received("220 mail.example.org ESMTP")
        transcript.sent("EHLO client")
        transcript.received("250-mail.example.org")
        transcript.received("250 SIZE 1000")
        #expect(transcript.lastReply == SMTPReply(code: 250, text: "mail.example.org SIZE 1000"))
        transcript.sent("MAIL FROM:<a@example.org>")
        transcript.received("250 OK")
        transcript.sent("RCPT TO:<b@example.com>")
        transcript.received("550-5.1.1 No such user")
        transcript.received("550 5.1.1 Try another")
        transcript.sent("QUIT")
        transcript.received("221 Bye")
        #expect(transcript.failure?.stage == .recipient)
        #expect(transcript.failure?.reply == SMTPReply(code: 550, text: "5.1.1 No such user 5.1.1 Try another"))
        #expect(transcript.lastReply?.code == 550)
        transcript.reset()
        #expect(transcript.failure == nil && transcript.stage == .connect)
    }
}

import Foundation
import Mail
import PassServerTesting
import Testing

/// `SMTPClient` against a real SMTP server (aiosmtpd) on a loopback port: what arrives, over which
/// protection, and how every kind of answer comes back typed with the server's own reply.
@Suite("SMTP client against a real server", .offCooperativePool, .timeLimit(.minutes(3)))
struct SMTPClientTests {
    static let message = Array("From: a@example.com\r\nTo: b@example.com\r\nSubject: test\r\n\r\nHello.\r\n".utf8)

    static func directory() throws -> String { try TestCertificates.temporaryDirectory(prefix: "smtp-client") }

    @Test("STARTTLS: the message arrives encrypted, and the connection serves the next message too")
    func startTLS() throws {
        let directory = try Self.directory()
        let certificates = try TestCertificates.make(in: directory)
        let server = try TestSMTPServer(.init(tls: true, requireTLS: true), certificates: certificates, in: directory)
        let client = try SMTPClient(SMTPConfiguration(url: server.url(), caFile: server.caFile))
        for recipient in ["one@example.com", "two@example.com"] {
            let outcome = client.send(from: "tickets@example.org", to: recipient, message: Self.message)
            guard case .accepted(let reply) = outcome else {
                Issue.record("expected acceptance, got \(outcome)")
                return
            }
            #expect(reply.code == 250)
        }
        let messages = try server.messages()
        #expect(messages.map { $0.rcptTos ?? [] } == [["one@example.com"], ["two@example.com"]])
        #expect(messages.allSatisfy { $0.tls == true && $0.mailFrom == "tickets@example.org" })
        #expect(messages.first?.bytes == Self.message)
    }

    @Test("smtps:// speaks TLS from the first byte")
    func implicitTLS() throws {
        let directory = try Self.directory()
        let certificates = try TestCertificates.make(in: directory)
        let server = try TestSMTPServer(.init(implicitTLS: true), certificates: certificates, in: directory)
        let client = try SMTPClient(SMTPConfiguration(url: server.url(scheme: "smtps"), caFile: server.caFile))
        #expect(client.send(from: "a@example.org", to: "b@example.com", message: Self.message).failure == nil)
        #expect(try server.messages().map(\.tls) == [true])
    }

    @Test("smtp:// without STARTTLS on offer sends nothing unless plaintext is allowed")
    func plaintextNeedsPermission() throws {
        let directory = try Self.directory()
        let server = try TestSMTPServer(in: directory)
        let strict = try SMTPClient(SMTPConfiguration(url: server.url()))
        let refused = strict.send(from: "a@example.org", to: "b@example.com", message: Self.message)
        guard case .refused(let failure) = refused else {
            Issue.record("expected a refusal of our configuration, got \(refused)")
            return
        }
        #expect(failure.reply == nil)
        #expect(try server.events().isEmpty)

        let lenient = try SMTPClient(SMTPConfiguration(url: server.url(), allowPlaintext: true))
        #expect(lenient.send(from: "a@example.org", to: "b@example.com", message: Self.message).failure == nil)
        #expect(try server.messages().map(\.tls) == [false])
    }

    @Test("a certificate from a CA we do not trust is a refusal: nothing is sent")
    func untrustedCertificate() throws {
        let directory = try Self.directory()
        let certificates = try TestCertificates.make(in: directory)
        let server = try TestSMTPServer(.init(tls: true), certificates: certificates, in: directory)
        let client = try SMTPClient(SMTPConfiguration(url: server.url(), caFile: certificates.untrustedRootCertificate))
        let outcome = client.send(from: "a@example.org", to: "b@example.com", message: Self.message)
        guard case .refused = outcome else {
            Issue.record("expected a refusal, got \(outcome)")
            return
        }
        #expect(try server.events().isEmpty)
        // The same server records a message from a client that trusts its CA: the refused one
        // would have been seen, and it is still not there.
        let trusting = try SMTPClient(SMTPConfiguration(url: server.url(), caFile: server.caFile))
        #expect(trusting.send(from: "a@example.org", to: "c@example.com", message: Self.message).failure == nil)
        #expect(try server.events().map { $0.rcptTos ?? [] } == [["c@example.com"]])
    }

    @Test("550 to a recipient is a rejection of that message, with the server's reply text")
    func permanentRefusal() throws {
        let directory = try Self.directory()
        let server = try TestSMTPServer(.init(refuse: ["gone@example.com"]), in: directory)
        let client = try SMTPClient(SMTPConfiguration(url: server.url(), allowPlaintext: true))
        let outcome = client.send(from: "a@example.org", to: "gone@example.com", message: Self.message)
        guard case .rejected(let failure) = outcome else {
            Issue.record("expected a rejection, got \(outcome)")
            return
        }
        #expect(failure.stage == .recipient)
        #expect(failure.reply?.code == 550)
        #expect(failure.description == "550 5.1.1 <gone@example.com>: Recipient address rejected: User unknown")
        // The next message on the same client goes through.
        #expect(client.send(from: "a@example.org", to: "here@example.com", message: Self.message).failure == nil)
        #expect(try server.messages().map { $0.rcptTos ?? [] } == [["here@example.com"]])
    }

    @Test("451 is transient, at RCPT TO and after the content; accepted once the server stops deferring")
    func temporaryRefusal() throws {
        let directory = try Self.directory()
        let server = try TestSMTPServer(.init(tempfail: ["grey@example.com": 2], tempfailData: 1), in: directory)
        let client = try SMTPClient(SMTPConfiguration(url: server.url(), allowPlaintext: true))
        var stages: [SMTPStage] = []
        for _ in 0..<3 {
            let outcome = client.send(from: "a@example.org", to: "grey@example.com", message: Self.message)
            guard case .transient(let failure) = outcome else {
                Issue.record("expected a transient failure, got \(outcome)")
                return
            }
            #expect(failure.reply?.code == 451)
            stages.append(failure.stage)
        }
        #expect(stages == [.recipient, .recipient, .data])
        #expect(client.send(from: "a@example.org", to: "grey@example.com", message: Self.message).failure == nil)
        #expect(try server.messages().count == 1)
    }

    @Test("credentials in the URL or given apart authenticate; a wrong password is a refusal with the 535 reply")
    func authentication() throws {
        let directory = try Self.directory()
        let certificates = try TestCertificates.make(in: directory)
        let server = try TestSMTPServer(.init(tls: true, auth: (user: "mailer", password: "p@ss:wörd")), certificates: certificates, in: directory)
        let inURL = try SMTPClient(SMTPConfiguration(url: server.url(user: "mailer", password: "p@ss:wörd"), caFile: server.caFile))
        #expect(inURL.send(from: "a@example.org", to: "b@example.com", message: Self.message).failure == nil)
        let apart = try SMTPClient(SMTPConfiguration(url: server.url(user: "mailer"), password: "p@ss:wörd", caFile: server.caFile))
        #expect(apart.send(from: "a@example.org", to: "c@example.com", message: Self.message).failure == nil)
        #expect(try server.messages().map(\.user) == ["mailer", "mailer"])

        let wrong = try SMTPClient(SMTPConfiguration(url: server.url(user: "mailer"), password: "nope", caFile: server.caFile))
        let outcome = wrong.send(from: "a@example.org", to: "d@example.com", message: Self.message)
        guard case .refused(let failure) = outcome else {
            Issue.record("expected a refusal, got \(outcome)")
            return
        }
        #expect(failure.stage == .authentication)
        #expect(failure.reply?.code == 535)
        #expect(try server.messages().count == 2)
    }

    @Test("no server listening is transient, without a reply")
    func connectionRefused() throws {
        let directory = try Self.directory()
        let server = try TestSMTPServer(in: directory)
        server.stop()
        let client = try SMTPClient(SMTPConfiguration(url: server.url(), allowPlaintext: true))
        let outcome = client.send(from: "a@example.org", to: "b@example.com", message: Self.message)
        guard case .transient(let failure) = outcome else {
            Issue.record("expected a transient failure, got \(outcome)")
            return
        }
        #expect(failure.reply == nil)
        #expect(failure.stage == .connect)
        #expect(!failure.description.isEmpty)
    }
}

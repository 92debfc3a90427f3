import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import PassServer

/// Exactly once but for what was in flight, with real processes: `pass-server serve` is SIGKILLed
/// while it sends an event's emails; a second process on the same database sends the rest, and
/// only emails claimed and unrecorded at the kill can arrive twice.
@Suite("Mail outbox: crash and restart", .offCooperativePool, .serialized, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct MailCrashTests {
    static let count = 300

    static func environment(_ certificates: TestCertificates, databaseURL: String, smtp: TestSMTPServer) -> [String: String] {
        ServerProcess.environment(certificates: certificates, databaseURL: databaseURL).merging([
            "SMTP_URL": smtp.url(), "SMTP_CA_FILE": certificates.rootCertificate, "MAIL_FROM": MailFixture.from,
            "MAIL_RATE": "50", "SMTP_TIMEOUT": "3", "MAIL_LEASE": "6", "LOG_LEVEL": "warning",
        ]) { _, override in override }
    }

    @Test("SIGKILL mid-send, restart: every ticket emailed, twice only among those in flight", arguments: Backend.allCases)
    func killAndRestart(backend: Backend) async throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passserver-mail-crash")
        let certificates = try TestCertificates.make(in: directory)
        let smtp = try TestSMTPServer(.init(tls: true, requireTLS: true, delay: 0.01), certificates: certificates, in: directory)
        defer { smtp.stop() }

        // Tickets through a short-lived in-process app without email (it migrates), then the event
        // send's job run in the foreground, as the job runner would: every email queued, none sent.
        let setup = try TestApp.start(backend, certificates: certificates)
        let event = try setup.createEvent()
        let rows = (0..<Self.count).map { #"{"attendeeName":"Guest \#($0)","attendeeEmail":"guest\#($0)@example.com"}"# }
        #expect(try setup.admin("POST", "/admin/v1/events/\(event)/tickets:batch", json: "[" + rows.joined(separator: ",") + "]").status == 200)
        let databaseURL = setup.databaseURL
        await offPool { setup.stop() }
        let store = try Storage.openStore(url: databaseURL)
        defer { store.close() }
        let job = try store.withSession(.write) { try $0.jobs.createEmailJob(eventID: event, resend: false, now: Date()) }
        let batch = try store.withSession(.write) { try $0.jobs.runEmailBatch(jobID: job.id, batchSize: 1_000, now: Date()) }
        #expect(batch.queued == Self.count)

        let environment = Self.environment(certificates, databaseURL: databaseURL, smtp: smtp)
        let first = try ServerProcess(["serve"], environment: environment, directory: directory)
        let pid = first.process.processIdentifier
        // Every event of this server is an accepted message (nothing is refused), so the count of
        // finished events is the count of messages sent.
        let killed = await ServerProcess.killAsSoonAs(timeout: 120) {
            smtp.eventCount() >= Self.count / 3 ? pid : nil
        }
        #expect(killed == pid, "the first process was sending: \(first.standardError.suffix(1_000))")
        first.forceKill()
        let sentBeforeKill = try smtp.messages().count
        // Claimed and never recorded (recording clears the claim), whether its lease ran out yet or not.
        let inFlight = try store.execute("SELECT count(*) AS n FROM mail_outbox WHERE state = 'pending' AND claimed_until IS NOT NULL")
            .first?.int("n") ?? 0
        #expect(sentBeforeKill >= Self.count / 3 && sentBeforeKill < Self.count, "killed mid-send: \(sentBeforeKill) sent")

        let second = try ServerProcess(["serve"], environment: environment, directory: directory)
        try await eventually("the second process sent the rest: \(second.standardError.suffix(1_000))", timeout: 120) {
            try store.withSession(.read) { try $0.mail.emailCounts(eventID: event) } == EmailCounts(sent: Self.count)
        }
        let perRecipient = Dictionary(grouping: try smtp.messages().flatMap { $0.rcptTos ?? [] }, by: { $0 }).mapValues(\.count)
        #expect((0..<Self.count).allSatisfy { perRecipient["guest\($0)@example.com"] ?? 0 >= 1 }, "every ticket emailed")
        let duplicates = perRecipient.values.reduce(0) { $0 + $1 - 1 }
        #expect(duplicates <= inFlight, "\(duplicates) sent twice, \(inFlight) in flight at the kill")
        #expect(perRecipient.values.allSatisfy { $0 <= 2 })
        print("\(backend): \(sentBeforeKill) sent before the kill, \(inFlight) in flight, \(duplicates) sent twice")

        second.signal(SIGTERM)
        let status = await second.waitForExit(timeout: 30)
        #expect(status == 0)
    }
}

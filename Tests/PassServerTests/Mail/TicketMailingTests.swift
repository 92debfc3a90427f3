import Foundation
import Logging
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Emailing tickets as a typed operation, called directly on both backends: every refusal with
/// the code the API answers, one ticket's email queued once, and an event's email job.
@Suite("Mail: ticket mailing", .offCooperativePool, .timeLimit(.minutes(3)))
struct TicketMailingTests {
    /// An app whose `Passes` hold the default template, `mute-ticket` (no email texts) and
    /// `broken-mail` (a subject with a placeholder no email has); a mailing over its store with
    /// email on or off, counting the dispatcher's and the job runner's wake-ups.
    struct Desk {
        let app: TestApp
        let queued = CallCounter()
        let jobs = CallCounter()
        let logs = MemorySink()

        init(_ backend: Backend) throws {
            let root = try TestCertificates.temporaryDirectory(prefix: "mailing-passes") + "/Passes"
            let manager = FileManager.default
            let original = PassServerExecutable.packageRoot.appendingPathComponent("Passes/event-ticket").path
            try manager.createDirectory(atPath: root, withIntermediateDirectories: true)
            try manager.copyItem(atPath: original, toPath: root + "/event-ticket")
            try manager.copyItem(atPath: original, toPath: root + "/mute-ticket")
            try manager.removeItem(atPath: root + "/mute-ticket/mail")
            try manager.copyItem(atPath: original, toPath: root + "/broken-mail")
            try "Your ticket for {{noSuchThing}}".write(toFile: root + "/broken-mail/mail/en/subject.txt", atomically: true, encoding: .utf8)
            app = try TestApp.start(backend) { $0.passesDirectory = root }
        }

        func mailing(enabled: Bool = true) -> TicketMailing {
            let (queued, jobs) = (self.queued, self.jobs)
            return TicketMailing(
                store: app.store, passes: app.application.passes, logger: Logger(label: "mailing", sink: logs),
                mail: MailAccess(isEnabled: enabled, queued: { queued.increment() }), jobCreated: { jobs.increment() }
            )
        }

        func event(template: String = "event-ticket") throws -> Event {
            let created = try app.admin("POST", "/admin/v1/events", json: """
                {"name":"Swift Night","venue":"Tokyo Hall","startsAt":"2027-03-01T19:00:00+09:00","timeZone":"Asia/Tokyo","template":"\(template)"}
                """)
            let id = try #require(created.jsonObject?["id"] as? String, "event not created: \(created.status) \(created.text)")
            return try #require(try app.store.withSession(.read) { try $0.events.event(id: id) })
        }

        func ticket(_ event: Event, email: String? = "ada@example.com") throws -> StoredPass {
            let address = email.map { #","attendeeEmail":"\#($0)""# } ?? ""
            let issued = try app.admin("POST", "/admin/v1/events/\(event.id)/tickets", json: #"{"attendeeName":"Ada Lovelace"\#(address)}"#)
            let serial = try #require(issued.jsonObject?["serialNumber"] as? String, "ticket not issued: \(issued.status) \(issued.text)")
            return try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") })
        }

        func emailState(_ ticket: StoredPass) throws -> TicketEmail.State? {
            try app.store.withSession(.read) { try $0.mail.ticketEmails(passIDs: [ticket.id]) }[ticket.id]?.state
        }
    }

    /// The conflict `code` `body` throws, or nil when it throws none or another error.
    static func conflictCode(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do {
            try body()
            Issue.record("nothing was refused", sourceLocation: sourceLocation)
            return nil
        } catch OrganizerError.conflict(let code, _) {
            return code
        } catch {
            Issue.record("refused with \(error), not a conflict", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test("one ticket's email: queued once (again while queued changes nothing); refused for a cancelled ticket or one without an address", arguments: Backend.allCases)
    func oneTicket(backend: Backend) throws {
        let desk = try Desk(backend)
        defer { desk.app.stop() }
        let mailing = desk.mailing()
        let event = try desk.event()
        let ticket = try desk.ticket(event)

        #expect(try mailing.email(ticket, requestID: "req-1"))
        #expect(try desk.emailState(ticket) == .queued)
        #expect(desk.queued.count == 1)
        #expect(desk.logs.lines.contains { $0.contains("ticket email queued") && $0.contains("request.id=req-1") }, "\(desk.logs.lines)")
        // Queued already: the one message stays, nobody is woken.
        #expect(try mailing.email(ticket, requestID: "req-2") == false)
        #expect(desk.queued.count == 1)

        let anonymous = try desk.ticket(event, email: nil)
        #expect(Self.conflictCode { try mailing.email(anonymous, requestID: "r") } == "no_email_address")
        #expect(try desk.emailState(anonymous) == nil)

        let cancelled = try desk.ticket(event, email: "grace@example.com")
        #expect(try desk.app.admin("POST", "/admin/v1/tickets/\(cancelled.serialNumber.rawValue)/cancel", json: "{}").status == 200)
        let stored = try #require(try desk.app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: cancelled.passTypeIdentifier, serialNumber: cancelled.serialNumber) })
        #expect(Self.conflictCode { try mailing.email(stored, requestID: "r") } == "ticket_cancelled")
        #expect(try desk.emailState(stored) == nil)
        #expect(desk.queued.count == 1)
    }

    @Test("email off, a template without email texts and one with invalid texts are refused with the API's codes and messages", arguments: Backend.allCases)
    func refusals(backend: Backend) throws {
        let desk = try Desk(backend)
        defer { desk.app.stop() }
        let off = desk.mailing(enabled: false)
        let on = desk.mailing()
        let event = try desk.event()
        let ticket = try desk.ticket(event)

        #expect(throws: OrganizerError.conflict(code: "email_disabled", message: "Email is off: the server has no SMTP_URL.")) {
            try off.email(ticket, requestID: "r")
        }
        #expect(Self.conflictCode { _ = try off.email(event, resend: false, requestID: "r") } == "email_disabled")
        #expect(Self.conflictCode { try off.requireEnabled() } == "email_disabled")
        #expect(Self.conflictCode { try off.require(template: "event-ticket") } == "email_disabled")
        #expect(try desk.emailState(ticket) == nil)

        let mute = try desk.event(template: "mute-ticket")
        #expect(throws: OrganizerError.conflict(code: "no_email_texts", message: "Template mute-ticket has no email texts (mail/<language>/).")) {
            try on.email(try desk.ticket(mute), requestID: "r")
        }
        #expect(Self.conflictCode { _ = try on.email(mute, resend: true, requestID: "r") } == "no_email_texts")
        do {
            try on.requireTexts(template: "broken-mail")
            Issue.record("invalid email texts were taken")
        } catch {
            #expect(error.errorCode == "no_email_texts")
            #expect(error.errorMessage.hasPrefix("The email texts of template broken-mail are invalid: "), "\(error.errorMessage)")
            #expect(error.status == 409)
        }
        #expect(throws: OrganizerError.conflict(code: "no_email_texts", message: "The ticket's template cannot be loaded for its email.")) {
            try on.requireTexts(template: "no-such-template")
        }
        #expect(Self.conflictCode { try on.requireTexts(template: nil) } == "no_email_texts")
        try on.require(template: "event-ticket")
        #expect(desk.queued.count == 0 && desk.jobs.count == 0)
    }

    @Test("an event's email job: the tickets with an address not sent yet; resend takes every one's", arguments: Backend.allCases)
    func eventJob(backend: Backend) throws {
        let desk = try Desk(backend)
        defer { desk.app.stop() }
        let mailing = desk.mailing()
        let event = try desk.event()
        let first = try desk.ticket(event)
        _ = try desk.ticket(event, email: "grace@example.com")
        _ = try desk.ticket(event, email: nil)
        #expect(try mailing.email(first, requestID: "r"))

        let job = try mailing.email(event, resend: false, requestID: "req-job")
        #expect(job.eventID == event.id)
        #expect(job.kind == Job.emailKind)
        #expect(job.total == 1, "the second ticket only: the first is queued already, the third has no address")
        #expect(desk.jobs.count == 1)
        #expect(desk.logs.lines.contains { $0.contains("event email job created") && $0.contains("job.id=\(job.id)") }, "\(desk.logs.lines)")

        let resend = try mailing.email(event, resend: true, requestID: "req-job")
        #expect(resend.kind == Job.emailResendKind)
        #expect(desk.jobs.count == 2)
        let stored = try #require(try desk.app.store.withSession(.read) { try $0.jobs.job(id: resend.id) })
        #expect(stored.isEmail)
    }

    @Test("the dashboard's email forms: queued and redirected with email on; a 409 page saying why with email off", arguments: Backend.allCases)
    func dashboardForms(backend: Backend) throws {
        let mail = try MailFixture.start(backend)
        defer { mail.stop() }
        let event = try mail.createEvent()
        let serial = try #require(try mail.importGuests(1, event: event).first)
        let (client, _) = try DashboardClient.signIn(mail.app, token: mail.app.adminToken)
        let csrf = try client.csrf(on: "/admin/tickets/\(serial)")
        let sent = try client.post("/admin/tickets/\(serial)/email", [], csrf: csrf)
        #expect(sent.status == 303, "\(sent.text.prefix(300))")
        #expect(sent.headers.first { $0.0.lowercased() == "location" }?.1 == "/admin/tickets/\(serial)?notice=email-queued")
        #expect(try mail.emailStatus(serial)?["state"] as? String != nil, "the ticket's email was queued")
        let job = try client.post("/admin/events/\(event)/email", [("resend", "true")], csrf: csrf)
        #expect(job.status == 303, "\(job.text.prefix(300))")
        let location = job.headers.first { $0.0.lowercased() == "location" }?.1 ?? ""
        #expect(location.hasPrefix("/admin/events/\(event)?notice=email-queued&job="), "\(location)")

        let app = try TestApp.start(backend)
        defer { app.stop() }
        let quiet = try app.createEvent()
        let ticket = try app.issueTicket(event: quiet)
        let (offline, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let token = try offline.csrf(on: "/admin/tickets/\(ticket)")
        for target in ["/admin/tickets/\(ticket)/email", "/admin/events/\(quiet)/email"] {
            let refused = try offline.post(target, [], csrf: token)
            #expect(refused.status == 409, "\(target): \(refused.status)")
            #expect(refused.text.contains("Email is off: the server has no SMTP_URL."), "\(target): \(refused.text.prefix(300))")
        }
        #expect(!app.logs.lines.contains { $0.contains("dashboard page failed") }, "a refusal is not logged as a failure")
    }
}

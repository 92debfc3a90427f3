import Foundation
import HTTPServer
import Storage

/// Email as the admin API sees it: whether an SMTP server is configured, and whom to tell that
/// emails were queued (the mail dispatcher of this process).
struct MailAccess: Sendable {
    var isEnabled: Bool
    var queued: @Sendable () -> Void

    static let off = MailAccess(isEnabled: false, queued: {})
}

extension AdminController {
    /// `POST /admin/v1/tickets/{serialNumber}/email`: queues the ticket's email (send, or send
    /// again). A ticket whose email is queued already keeps that one message. 202 with the ticket.
    func emailTicket(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        try AdminInput(request, allowed: [], bodyRequired: false).validate()
        return .json(try emailTicket(pass, requestID: request.requestID), status: 202, encoder: .api)
    }

    /// Queues the ticket's email (send, or send again); 409 when email is off, the ticket is
    /// cancelled or has no address.
    func emailTicket(_ pass: StoredPass, requestID: String) throws -> TicketBody {
        try requireEmail()
        guard pass.status == .active else {
            throw HTTPError(status: 409, code: "ticket_cancelled", message: "A cancelled ticket is not emailed.")
        }
        guard pass.attendeeEmail != nil else {
            throw HTTPError(status: 409, code: "no_email_address", message: "The ticket has no attendeeEmail.")
        }
        let event = try pass.eventID.flatMap { id in try store.withSession(.read) { try $0.event(id: id) } }
        try requireEmailTexts(template: event?.template)
        let queued = try store.withSession(.write) { try $0.enqueueEmails(passIDs: [pass.id], now: now()) }
        if !queued.isEmpty {
            logger.info("ticket email queued", ["pass.serial": pass.serialNumber.rawValue, "request.id": requestID])
            mail.queued()
        }
        return try ticketBody(pass)
    }

    /// `POST /admin/v1/events/{eventId}/email`: a job that queues the email of every ticket with
    /// an address that was not sent yet (with `{"resend": true}`: every ticket's, sent or not);
    /// tickets whose email is queued already are left as they are. 202 with the job.
    func emailEvent(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var input = try AdminInput(request, allowed: ["resend"], bodyRequired: false)
        let resend = input.boolean("resend").value ?? false
        try input.validate()
        return .json(try emailEvent(event, resend: resend, requestID: request.requestID), status: 202, encoder: .api)
    }

    /// A job queueing the email of every ticket with an address not sent yet (`resend`: every one's).
    func emailEvent(_ event: Event, resend: Bool, requestID: String) throws -> JobBody {
        try requireEmail()
        try requireEmailTexts(template: event.template)
        let job = try store.withSession(.write) { try $0.createEmailJob(eventID: event.id, resend: resend, now: now()) }
        logger.info("event email job created", ["event.id": event.id, "job.id": job.id, "total": "\(job.total)", "request.id": requestID])
        jobCreated()
        var body = JobBody(job)
        body.emails = EmailCountsBody(EmailCounts())
        return body
    }

    /// 409 `email_disabled` while no SMTP server is configured.
    func requireEmail() throws {
        guard mail.isEnabled else {
            throw OrganizerError.conflict(code: "email_disabled", message: "Email is off: the server has no SMTP_URL.")
        }
    }

    /// 409 when email is off or the template has no email texts.
    func requireEmail(template name: String?) throws {
        try requireEmail()
        try requireEmailTexts(template: name)
    }

    /// 409 `no_email_texts` when the template has no (valid) email texts.
    func requireEmailTexts(template name: String?) throws {
        guard let name, let template = try? passes.templates.template(named: name) else {
            throw OrganizerError.conflict(code: "no_email_texts", message: "The ticket's template cannot be loaded for its email.")
        }
        let languages: Int
        do {
            languages = try TicketMail.texts(of: template).count
        } catch {
            throw OrganizerError.conflict(code: "no_email_texts", message: "The email texts of template \(name) are invalid: \(error.message)")
        }
        guard languages > 0 else {
            throw OrganizerError.conflict(code: "no_email_texts", message: "Template \(name) has no email texts (mail/<language>/).")
        }
    }

    /// The ticket as the API shows it: with its download link and what became of its email.
    func ticketBody(_ pass: StoredPass) throws -> TicketBody {
        try ticketBodies([pass])[0]
    }

    /// Tickets as the API shows them, their email states read in one statement.
    func ticketBodies(_ passes: [StoredPass], downloadURLs: Bool = true) throws -> [TicketBody] {
        let emails = try store.withSession(.read) { try $0.ticketEmails(passIDs: passes.map(\.id)) }
        return try passes.map { pass in
            var body = TicketBody(pass, downloadURL: downloadURLs ? try downloadURL(for: pass) : nil)
            body.emailStatus = emails[pass.id].map(EmailStatusBody.init)
            return body
        }
    }
}

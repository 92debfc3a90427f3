import Foundation
import HTTPServer
import Storage

/// Email as the admin API shows it, over `TicketMailing`.
extension AdminController {
    /// Emailing tickets with this controller's store, templates and mail dispatcher.
    var mailing: TicketMailing {
        TicketMailing(store: store, passes: passes, logger: logger, mail: mail, jobCreated: jobCreated, now: now)
    }

    /// `POST /admin/v1/tickets/{serialNumber}/email`: queues the ticket's email (send, or send
    /// again). A ticket whose email is queued already keeps that one message. 202 with the ticket;
    /// 409 when email is off, the ticket is cancelled or has no address.
    func emailTicket(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        try AdminInput(request, allowed: [], bodyRequired: false).validate()
        try mailing.email(pass, requestID: request.requestID)
        return .json(try ticketBody(pass), status: 202, encoder: .api)
    }

    /// `POST /admin/v1/events/{eventId}/email`: a job that queues the email of every ticket with
    /// an address that was not sent yet (with `{"resend": true}`: every ticket's, sent or not);
    /// tickets whose email is queued already are left as they are. 202 with the job.
    func emailEvent(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var input = try AdminInput(request, allowed: ["resend"], bodyRequired: false)
        let resend = input.boolean("resend").value ?? false
        try input.validate()
        var body = JobBody(try mailing.email(event, resend: resend, requestID: request.requestID))
        body.emails = EmailCountsBody(EmailCounts())
        return .json(body, status: 202, encoder: .api)
    }

    // The checks the ticket operations make before they promise an email (`TicketMailing`'s,
    // refusing with `OrganizerError.conflict`).

    /// 409 when email is off or the template has no email texts.
    func requireEmail(template name: String?) throws { try mailing.require(template: name) }

    /// The ticket as the API shows it: with its download link and what became of its email.
    func ticketBody(_ pass: StoredPass) throws -> TicketBody {
        try ticketBodies([pass])[0]
    }

    /// Tickets as the API shows them, their email states read in one statement.
    func ticketBodies(_ passes: [StoredPass], downloadURLs: Bool = true) throws -> [TicketBody] {
        let emails = try store.withSession(.read) { try $0.mail.ticketEmails(passIDs: passes.map(\.id)) }
        return try passes.map { pass in
            var body = TicketBody(pass, downloadURL: downloadURLs ? try downloadURL(for: pass) : nil)
            body.emailStatus = emails[pass.id].map(EmailStatusBody.init)
            return body
        }
    }
}

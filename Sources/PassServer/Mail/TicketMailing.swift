import Foundation
import Logging
import Storage

/// Email as the organizer operations see it: whether an SMTP server is configured, and whom to
/// tell that emails were queued (the mail dispatcher of this process).
struct MailAccess: Sendable {
    var isEnabled: Bool
    var queued: @Sendable () -> Void

    static let off = MailAccess(isEnabled: false, queued: {})
}

/// Emailing tickets: one ticket's email (send, or send again), an order's, a job emailing a whole
/// event, and the checks the other operations make before they promise an email (issuing or
/// importing with `notify`). A ticket of an order is emailed with its order: asking for the
/// ticket's email queues the order's. Refusals are `OrganizerError.conflict` with the codes the
/// API documents (`email_disabled`, `no_email_texts`, `ticket_cancelled`, `no_email_address`,
/// `order_cancelled`).
struct TicketMailing: Sendable {
    let store: any Store
    let passes: PassService
    let logger: Logger
    var mail: MailAccess
    /// Called after a job was created (wakes the job runner).
    var jobCreated: @Sendable () -> Void = {}
    var now: @Sendable () -> Date = Date.init

    /// Queues the ticket's email (send, or send again); a ticket whose email is queued already
    /// keeps that one message. Refused when email is off, the ticket is cancelled, has no
    /// address, or its template has no email texts. Whether a message was queued now.
    @discardableResult
    func email(_ ticket: StoredPass, requestID: String) throws -> Bool {
        try requireEnabled()
        guard ticket.status == .active else {
            throw OrganizerError.conflict(code: "ticket_cancelled", message: "A cancelled ticket is not emailed.")
        }
        if let orderID = ticket.orderID, let order = try store.withSession(.read, { try $0.orders.order(id: orderID) }) {
            return try email(order, requestID: requestID)
        }
        guard ticket.attendeeEmail != nil else {
            throw OrganizerError.conflict(code: "no_email_address", message: "The ticket has no attendeeEmail.")
        }
        let event = try ticket.eventID.flatMap { id in try store.withSession(.read) { try $0.events.event(id: id) } }
        try requireTexts(template: event?.template)
        let queued = try store.withSession(.write) { try $0.mail.enqueueEmails(passIDs: [ticket.id], now: now()) }
        guard !queued.isEmpty else { return false }
        logger.info("ticket email queued", ["pass.serial": ticket.serialNumber.rawValue, "request.id": requestID])
        mail.queued()
        return true
    }

    /// Queues the order's email to its buyer (send, or send again): one message listing its
    /// active tickets. An order whose email is queued already keeps that one message. Refused
    /// when email is off, the order has no buyer's address (erased), every ticket of it is
    /// cancelled, or its template has no order email texts. Whether a message was queued now.
    @discardableResult
    func email(_ order: StoredOrder, requestID: String) throws -> Bool {
        try requireEnabled()
        guard order.buyerEmail != nil else {
            throw OrganizerError.conflict(code: "no_email_address", message: "The order has no buyerEmail.")
        }
        let (event, tickets) = try store.withSession(.read) { (try $0.events.event(id: order.eventID), try $0.orders.passes(orderID: order.id)) }
        guard tickets.contains(where: { $0.status == .active }) else {
            throw OrganizerError.conflict(code: "order_cancelled", message: "Every ticket of the order is cancelled; it is not emailed.")
        }
        try requireTexts(template: event?.template, orders: true)
        let queued = try store.withSession(.write) { try $0.mail.enqueueOrderEmails(orderIDs: [order.id], now: now()) }
        guard !queued.isEmpty else { return false }
        logger.info("order email queued", ["order.id": order.id, "tickets": "\(queued.count)", "request.id": requestID])
        mail.queued()
        return true
    }

    /// A job queueing the email of every ticket of `event` with an address not sent yet
    /// (`resend`: every one's, sent or not); tickets whose email is queued already are left as
    /// they are.
    func email(_ event: Event, resend: Bool, requestID: String) throws -> Job {
        try requireEnabled()
        let hasOrders = try store.withSession(.read) { !(try $0.orders.orders(eventID: event.id, limit: 1)).isEmpty }
        try requireTexts(template: event.template, orders: hasOrders)
        let job = try store.withSession(.write) { try $0.jobs.createEmailJob(eventID: event.id, resend: resend, now: now()) }
        logger.info("event email job created", ["event.id": event.id, "job.id": job.id, "total": "\(job.total)", "request.id": requestID])
        jobCreated()
        return job
    }

    /// `email_disabled` while no SMTP server is configured.
    func requireEnabled() throws(OrganizerError) {
        guard mail.isEnabled else {
            throw .conflict(code: "email_disabled", message: "Email is off: the server has no SMTP_URL.")
        }
    }

    /// Refused when email is off or the template has no email texts (`orders`: nor order texts).
    func require(template name: String?, orders: Bool = false) throws(OrganizerError) {
        try requireEnabled()
        try requireTexts(template: name, orders: orders)
    }

    /// `no_email_texts` when the template cannot be loaded or has no (valid) email texts; with
    /// `orders`, the order email's texts too.
    func requireTexts(template name: String?, orders: Bool = false) throws(OrganizerError) {
        guard let name, let template = try? passes.templates.template(named: name) else {
            throw .conflict(code: "no_email_texts", message: "The ticket's template cannot be loaded for its email.")
        }
        let languages: Int
        let orderLanguages: Int
        do {
            languages = try TicketMail.texts(of: template).count
            orderLanguages = orders ? try OrderMail.texts(of: template).count : 1
        } catch {
            throw .conflict(code: "no_email_texts", message: "The email texts of template \(name) are invalid: \(error.message)")
        }
        guard languages > 0 else {
            throw .conflict(code: "no_email_texts", message: "Template \(name) has no email texts (mail/<language>/).")
        }
        guard orderLanguages > 0 else {
            throw .conflict(code: "no_email_texts", message: "Template \(name) has no order email texts (mail/<language>/order-…).")
        }
    }
}

import Foundation
import Logging
import Mail
import PassBundle
import Storage
import Synchronization

/// Ticket and order emails as an outbox channel: `mail_outbox` rows, the SMTP server as the
/// sender, `MailPolicy` as the reply policy. Each message is written when its row is claimed, from
/// the ticket (or the order and its tickets) and event as they are then (`TicketMail`,
/// `OrderMail`); each batch of answers is recorded in one transaction: the rows' settlement, then
/// the answers on the orders and tickets (`orders`, `ticket_emails`).
final class MailChannel: OutboxChannel {
    let store: any Store
    let sender: MailSender
    let policy: MailPolicy
    let mail: TicketMail
    let orderMail: OrderMail
    let templates: TemplateLibrary
    /// The attendee page of a ticket: its download link.
    let ticketURL: @Sendable (StoredPass) throws -> String
    /// The buyer's page of an order.
    let orderURL: @Sendable (StoredOrder) throws -> String
    let readiness: Readiness
    let logger: Logger
    let now: @Sendable () -> Date
    /// Totals since start, for metrics and tests.
    let statistics = Mutex(OutboxStatistics())
    /// Whether the SMTP server answers, from our own messages' outcomes: for `/readyz` and the
    /// warning logged when it stops.
    let reachability = Mutex(Reachability())

    init(
        store: any Store, sender: MailSender, policy: MailPolicy, mail: TicketMail, orderMail: OrderMail, templates: TemplateLibrary,
        ticketURL: @escaping @Sendable (StoredPass) throws -> String, orderURL: @escaping @Sendable (StoredOrder) throws -> String,
        readiness: Readiness, logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.sender = sender
        self.policy = policy
        self.mail = mail
        self.orderMail = orderMail
        self.templates = templates
        self.ticketURL = ticketURL
        self.orderURL = orderURL
        self.readiness = readiness
        self.logger = logger
        self.now = now
    }

    func claim(limit: Int, now: Date, lease: Duration) throws -> [MailOutboxRow] {
        try store.withSession(.write) { try $0.mail.claimEmails(limit: limit, now: now, lease: lease) }
    }

    func message(for row: MailOutboxRow) -> Result<OutgoingMail, MailError> {
        Result { () throws(MailError) in
            guard let pass = row.ticket, let event = row.event else { throw MailError(.invalidText, "the ticket or its event is gone") }
            if row.orderID != nil { return try orderMessage(for: row, event: event) }
            guard let email = pass.attendeeEmail else { throw MailError(.invalidAddress, "the ticket has no email address any more") }
            let template = try self.template(of: event)
            let url: String
            do {
                url = try ticketURL(pass)
            } catch {
                throw MailError(.invalidText, "the ticket's download link cannot be made")
            }
            let ticket = TicketMail.Ticket(
                serialNumber: pass.serialNumber.rawValue, attendeeName: pass.attendeeName, attendeeEmail: email, seat: pass.seat,
                language: pass.language, eventName: event.name, venue: event.venue, startsAt: event.startsAt, timeZone: event.timeZone,
                template: event.template, eventLanguage: event.language, ticketURL: url
            )
            let message = try mail.message(for: ticket, template: template, now: now())
            return OutgoingMail(from: message.from.address, to: message.to.address, bytes: message.rendered(), claimedUntil: row.claimedUntil)
        }
    }

    /// The message of an order's row: the order's active tickets, to its buyer.
    private func orderMessage(for row: MailOutboxRow, event: Event) throws(MailError) -> OutgoingMail {
        guard let order = row.order else { throw MailError(.invalidText, "the order is gone") }
        guard let email = order.buyerEmail else { throw MailError(.invalidAddress, "the order has no buyer's email address any more") }
        let active = row.orderTickets.filter { $0.status == .active }
        guard !active.isEmpty else { throw MailError(.invalidText, "the order has no active ticket any more") }
        let template = try self.template(of: event)
        let page: String
        let tickets: [OrderMail.Ticket]
        do {
            page = try orderURL(order)
            tickets = try active.map { pass in
                OrderMail.Ticket(
                    serialNumber: pass.serialNumber.rawValue, attendeeName: PassService.shownName(pass), seat: pass.seat, ticketURL: try ticketURL(pass)
                )
            }
        } catch {
            throw MailError(.invalidText, "the order's links cannot be made")
        }
        let message = try orderMail.message(
            for: OrderMail.Order(
                buyerName: order.buyerName, buyerEmail: email, language: order.language ?? row.orderTickets.first?.language,
                eventName: event.name, venue: event.venue, startsAt: event.startsAt, timeZone: event.timeZone, eventLanguage: event.language,
                orderURL: page, tickets: tickets
            ),
            template: template, now: now()
        )
        return OutgoingMail(from: message.from.address, to: message.to.address, bytes: message.rendered(), claimedUntil: row.claimedUntil)
    }

    /// The event's pass template, whose texts the message is written from.
    private func template(of event: Event) throws(MailError) -> Template {
        do {
            return try templates.template(named: event.template)
        } catch let error as PassBundleError {
            throw MailError(.invalidText, "template \(event.template) cannot be loaded: \(error.message)")
        } catch {
            throw MailError(.invalidText, "template \(event.template) cannot be read: \(error)")
        }
    }

    func record(_ batch: OutboxBatch<MailChannel>, now: Date) throws {
        let results = batch.items.map { item in
            let kind: EmailResult.Kind = switch item.decision.settlement {
            case .completed: .sent
            case .failed: .failed
            case .retry, .halt: .retrying
            }
            return EmailResult(passID: item.row.passID, orderID: item.row.orderID, kind: kind, reply: item.decision.reason)
        }
        try store.transaction { session in
            // Lock order: the outbox rows first (settling locks them by ticket), then the tickets' rows.
            try session.outbox.settleOutbox(batch.settlement, in: .mail, now: now)
            try session.mail.recordEmails(results, now: now)
        }
    }

    func recorded(_ batch: OutboxBatch<MailChannel>, receipt: Void?, now: Date) {
        // The far end answered or not whether or not the answers could be recorded.
        reachability.observe(
            batch.items.map { ($0.answer.reachedServer, $0.decision.reason) }, at: now,
            far: FarEnd(name: "the SMTP server", messages: "emails", answerKey: "smtp.answer"), logger: logger
        )
        guard receipt != nil else { return }
        for item in batch.items {
            guard case .failed(let reason) = item.decision.result else { continue }
            logger.warning("email failed", [
                "pass.id": "\(item.row.passID)", "order.id": item.row.orderID ?? "", "mail.reason": reason, "smtp.reply": item.decision.reason ?? "",
            ])
        }
        let added = batch.statistics
        statistics.withLock { $0.add(added) }
    }

    func halted(why answer: String, until: Date, pause: TimeInterval) {
        logger.critical("the SMTP server refused us (credentials, sender, TLS); all email paused", [
            "smtp.answer": answer, "retry_in_s": "\(Int(pause))",
        ])
        readiness.warn("smtp", warning: "email paused: the SMTP server answered \(answer); one probe message at \(ISODate.format(until))")
    }

    func resumed() {
        logger.notice("the SMTP server accepts email again; sending resumed")
        readiness.warn("smtp", warning: nil)
    }
}

extension MailOutboxRow: OutboxItem {}


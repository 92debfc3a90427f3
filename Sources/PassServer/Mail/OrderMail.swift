import Foundation
import Mail
import PassBundle

/// The one email that brings a buyer every ticket of an order, written from the order texts of the
/// event's pass template (`Passes/<template>/mail/<language>/order-subject.txt`,
/// `order-body.txt`, `order-body.html`) in the order's language, else its first ticket's, else the
/// event's, else English. It links the order's page (every ticket with its Add buttons, and Add
/// all) and lists each ticket with its own link, so the buyer can pass a ticket on.
///
/// Pure, like `TicketMail`: everything a message needs comes in as values (`Order`).
struct OrderMail: Sendable {
    /// What one message is written from.
    struct Order: Sendable, Equatable {
        var buyerName: String?
        var buyerEmail: String
        /// The order's own language, else its first ticket's; nil: the event's.
        var language: String?
        var eventName: String
        var venue: String
        var startsAt: Date
        var timeZone: String
        var eventLanguage: String
        /// The order's page.
        var orderURL: String
        /// The tickets the email lists (the active ones), in issue order.
        var tickets: [Ticket]
    }

    struct Ticket: Sendable, Equatable {
        var serialNumber: String
        var attendeeName: String
        var seat: String?
        /// The ticket's page: its download link.
        var ticketURL: String
    }

    /// The names a text may use as `{{name}}`.
    static let placeholders: Set<String> = [
        "buyerName", "eventName", "startsAt", "timeZone", "venue", "orderURL", "organizationName", "ticketCount",
    ]

    /// The list of tickets, `{{#tickets}}…{{/tickets}}`, and the names each ticket gives values for.
    static let lists: [String: Set<String>] = ["tickets": ["attendeeName", "seat", "serialNumber", "ticketURL"]]

    /// The parts of one language's texts, below `mail/<language>/`.
    static let parts = (subject: "order-subject.txt", text: "order-body.txt", html: "order-body.html")

    let from: MailAddress
    let replyTo: MailAddress?
    let organizationName: String

    /// The message for `order`, with the texts of `template`, dated `now`.
    func message(for order: Order, template: Template, now: Date) throws(MailError) -> MailMessage {
        let texts = try Self.texts(of: template)
        guard let (language, text) = TicketMail.pick(order.language ?? order.eventLanguage, from: texts) else {
            throw MailError(.invalidText, "template \(template.name) has no order email texts (mail/<language>/\(Self.parts.subject), …)")
        }
        let values = [
            "buyerName": order.buyerName ?? "", "eventName": order.eventName, "venue": order.venue,
            "startsAt": TicketMail.format(order.startsAt, timeZone: order.timeZone, language: language), "timeZone": order.timeZone,
            "orderURL": order.orderURL, "organizationName": organizationName, "ticketCount": String(order.tickets.count),
        ]
        let tickets = order.tickets.map { ticket in
            ["attendeeName": ticket.attendeeName, "seat": ticket.seat ?? "—", "serialNumber": ticket.serialNumber, "ticketURL": ticket.ticketURL]
        }
        let rendered = text.render(values, lists: ["tickets": tickets])
        return MailMessage(
            from: from, replyTo: replyTo, to: try MailAddress(order.buyerEmail, displayName: order.buyerName),
            subject: rendered.subject, text: rendered.text, html: rendered.html, date: now
        )
    }

    /// Every language the template has complete order texts for, parsed and checked.
    static func texts(of template: Template) throws(MailError) -> [String: MailTemplate] {
        try TicketMail.texts(of: template, parts: parts, placeholders: placeholders, lists: lists)
    }
}

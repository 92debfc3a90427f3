import Foundation
import PassBundle
import Storage

// Orders: tickets issued together for one buyer, who gets one email for all of them, one page
// listing them (`/orders/{token}`) and one download of their passes as `.pkpasses` files. An order
// is made by one call (`issueOrder`) or by the rows of an upload that share an `orderId`
// (`importTickets`); its tickets never change order.
extension Organizer {
    /// A new order's key (the order's id in the API: 128 random bits, URL-safe) and what is stored
    /// of its page's token (only the hash).
    func newOrder(externalID: String?, buyerEmail: String?, buyerName: String?, language: String?) throws -> NewOrder {
        let id = Crypto.randomToken(bytes: 16)
        return NewOrder(
            id: id, externalID: externalID, buyerEmail: buyerEmail, buyerName: buyerName, language: language,
            tokenHash: try TokenVault.hash(passes.vault.orderToken(orderID: id))
        )
    }

    /// Issues an order of `event`: its buyer and its tickets, all or none; `notify` queues the
    /// order's one email with it (it needs the buyer's address: an order without one is never
    /// emailed, like a ticket without one). With an external id the event's order has, that order is
    /// returned (`created` false) and nothing is issued, so a retried request never issues twice.
    func issueOrder(_ draft: OrderDraft, of event: Event, notify: Bool, requestID: String) throws -> IssuedOrder {
        try requireNotErased(event)
        var check = FieldCheck(reported: draft.unreadable, fields: OrderDraft.fields + ["notify"])
        let externalID = check.text("externalId", draft.externalID, maxLength: TicketDraft.externalIDMaxLength)
        let buyerEmail = check.apply("buyerEmail", draft.buyerEmail, FieldRules.email)
        let buyerName = check.text("buyerName", draft.buyerName)
        let language = check.apply("language", draft.language, FieldRules.language)
        let notify = check.value("notify", notify) ?? false
        if notify && draft.buyerEmail == nil { check.problem("notify", "needs buyerEmail") }
        var tickets: [NewTicket] = []
        if let drafts = check.required("tickets", draft.tickets) {
            if drafts.isEmpty || drafts.count > TicketImport.maxRows {
                check.problem("tickets", "must hold 1 to \(TicketImport.maxRows) tickets")
            }
            let declared = templateFields(of: event)
            var rowOfExternalID: [String: Int] = [:]
            for (index, ticket) in drafts.enumerated() {
                // Not an object at all: that alone is said of it.
                if let unreadable = ticket.unreadable.first(where: { $0.field.isEmpty }) {
                    check.problem("tickets[\(index)]", unreadable.message)
                    continue
                }
                var own = FieldCheck(reported: ticket.unreadable, fields: TicketDraft.fields)
                let checked = self.check(ticket, declared: declared, &own)
                for issue in own.allIssues { check.problem("tickets[\(index)].\(issue.field)", issue.message) }
                guard let checked else { continue }
                if let id = checked.externalID {
                    if let first = rowOfExternalID[id] {
                        check.problem("tickets[\(index)].externalId", "repeats the externalId of tickets[\(first)]")
                    }
                    rowOfExternalID[id] = index
                }
                tickets.append(checked)
            }
        }
        try check.validate()
        if notify { try emailCheck(event.template, true) }
        let order = try newOrder(externalID: externalID, buyerEmail: buyerEmail, buyerName: buyerName, language: language)
        let passType = try passType()
        let newPasses = try tickets.map { ticket in
            var pass = try newPass(ticket, event: event, passType: passType)
            pass.orderID = order.id
            return pass
        }
        let made: (order: StoredOrder, passes: [ImportedPass], created: Bool)
        do {
            made = try store.transaction { session in
                let made = try session.orders.createOrder(order, passes: newPasses, eventID: event.id, now: now())
                if made.created, let problem = try unbuildableRows(made.passes, rows: Array(made.passes.indices), event: event).first {
                    throw OrganizerError.invalid("tickets[\(problem.row)].pass", problem.message)
                }
                // The email is queued with the order, so an order is never issued without the email asked for.
                if made.created && notify { try session.mail.enqueueOrderEmails(orderIDs: [made.order.id], now: now()) }
                return made
            }
        } catch let error as StorageError where error.code == .conflict {
            throw OrganizerError.conflict(code: "external_id_exists", message: "Every ticket of the order has an externalId the event's tickets have.")
        }
        if made.created {
            logger.info("order issued", [
                "event.id": event.id, "order.id": made.order.id, "tickets": "\(made.passes.count)", "notify": "\(notify)", "request.id": requestID,
            ])
            if notify { mail.queued() }
        }
        return IssuedOrder(order: Order(order: made.order, tickets: try self.tickets(made.passes.map(\.pass))), created: made.created)
    }

    /// The order with this id; `notFound` when there is none (or it is not an order id), or its
    /// event was deleted.
    func order(id: String?) throws -> StoredOrder {
        guard let id, AdminIdentifiers.isPlausible(id), let order = try store.withSession(.read, { session -> StoredOrder? in
            guard let order = try session.orders.order(id: id), try session.events.event(id: order.eventID)?.deletingAt == nil else { return nil }
            return order
        })
        else { throw OrganizerError.notFound("No such order.") }
        return order
    }

    /// The order with its tickets, their email states and check-ins.
    func details(of order: StoredOrder) throws -> Order {
        let passes = try store.withSession(.read) { try $0.orders.passes(orderID: order.id) }
        return Order(order: order, tickets: try tickets(passes))
    }

    /// One page of the event's orders, oldest first, each with how many tickets it holds.
    func orders(of event: Event, _ query: OrderQuery) throws -> OrderList {
        var check = FieldCheck(reported: query.unreadable, fields: OrderQuery.fields)
        let cursor = check.value("cursor", query.cursor)
        let position = cursor.flatMap(EventCursor.decode)
        if cursor != nil && position == nil { check.problem("cursor", "must be a cursor from a previous page") }
        let limit = check.integer("limit", query.limit, in: 1...500) ?? 50
        try check.validate()
        let after = position.map { (createdAtMillis: $0.startsAtMillis, id: $0.id) }
        let page = try store.withSession(.read) { try $0.orders.orders(eventID: event.id, after: after, limit: limit + 1) }
        let shown = Array(page.prefix(limit))
        let next = page.count > limit ? shown.last.map { summary in
            // The same shape as the events list's cursor: the creation time in milliseconds and the id.
            EventCursor.encode(EventListPosition(startsAtMillis: Int64((summary.order.createdAt.timeIntervalSince1970 * 1_000).rounded()), id: summary.order.id))
        } : nil
        return OrderList(orders: shown, nextCursor: next)
    }

    /// How an order's active tickets are offered as `.pkpasses` files: Wallet takes ten passes in
    /// one at most, so larger orders come in near-equal parts (12 tickets: two of 6), in issue
    /// order. Cancelled tickets are in none.
    static func parts(of tickets: [StoredPass]) -> [[StoredPass]] {
        let active = tickets.filter { $0.status == .active }
        return PassesBundle.parts(of: active.count).map { Array(active[$0]) }
    }
}

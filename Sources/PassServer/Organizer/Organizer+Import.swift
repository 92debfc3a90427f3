import Foundation
import PassBundle
import Storage

extension Organizer {
    /// Checks every row of an upload as the import would, issuing nothing (the import's first
    /// step, and the dashboard's preview). `draft` reads a row's ticket; `byColumn`: an extra
    /// field is named by its column (CSV), not by its path (`extra.tier`, JSON).
    func checkImport(_ event: Event, rows: [TicketImport.Row], byColumn: Bool, draft: (TicketImport.Row) -> TicketDraft) -> TicketImportCheck {
        let declared = templateFields(of: event)
        var problems: [RowIssue] = []
        var tickets: [(row: Int, ticket: NewTicket)] = []
        var rowOfExternalID: [String: Int] = [:]
        var orders: [String: ImportOrder] = [:]
        for row in rows {
            if let problem = row.problem {
                problems.append(RowIssue(row: row.number, field: nil, message: problem))
                continue
            }
            let draft = draft(row)
            var check = FieldCheck(reported: draft.unreadable, fields: TicketDraft.fields + TicketDraft.orderFields)
            var ticket = self.check(draft, declared: declared, &check)
            let order = self.checkOrder(of: draft, row: row.number, &check, orders: &orders)
            problems += check.allIssues.map { issue in
                let field = byColumn && issue.field.hasPrefix("extra.") ? String(issue.field.dropFirst("extra.".count)) : issue.field
                return RowIssue(row: row.number, field: field, message: issue.message)
            }
            guard check.isValid else { continue }
            ticket?.orderKey = order
            guard let ticket else { continue }
            if let externalID = ticket.externalID {
                if let first = rowOfExternalID[externalID] {
                    problems.append(RowIssue(row: row.number, field: "externalId", message: "repeats the externalId of row \(first)"))
                    continue
                }
                rowOfExternalID[externalID] = row.number
            }
            tickets.append((row.number, ticket))
        }
        return TicketImportCheck(rows: rows, tickets: tickets, problems: problems, orders: orders)
    }

    /// The order columns of one row: its `orderId`, with the buyer it names added to that order
    /// (rows of one order that name a buyer must name the same one). Problems go to `check`.
    private func checkOrder(of draft: TicketDraft, row: Int, _ check: inout FieldCheck, orders: inout [String: ImportOrder]) -> String? {
        let key = check.text("orderId", draft.orderID, maxLength: TicketDraft.externalIDMaxLength)
        let email = check.apply("buyerEmail", draft.buyerEmail, FieldRules.email)
        let name = check.text("buyerName", draft.buyerName)
        guard let key else {
            if draft.orderID == nil {
                if draft.buyerEmail != nil { check.problem("buyerEmail", "needs orderId (the buyer is an order's)") }
                if draft.buyerName != nil { check.problem("buyerName", "needs orderId (the buyer is an order's)") }
            }
            return nil
        }
        var order = orders[key] ?? ImportOrder(key: key, row: row)
        for (field, value, kept) in [("buyerEmail", email, order.buyerEmail), ("buyerName", name, order.buyerName)] {
            guard let value, let kept, value != kept else { continue }
            check.problem(field, "differs from the \(field) another row of order \(key) gives")
        }
        order.buyerEmail = order.buyerEmail ?? email
        order.buyerName = order.buyerName ?? name
        orders[key] = order
        return key
    }

    /// Issues the tickets of a checked upload, all or none; `notify` queues the email of each new
    /// one (a repeated upload emails no one twice). A row whose external id the event already has
    /// returns that ticket.
    func importTickets(_ event: Event, check: TicketImportCheck, notify: Bool, requestID: String) throws -> TicketImportOutcome {
        try requireNotErased(event)
        if notify { try emailCheck(event.template, !check.orders.isEmpty) }
        guard check.problems.isEmpty else { return .invalid(check.problems) }
        let tickets = check.tickets
        let passType = try passType()
        // Each order named gets a new key; the import makes it only if the event has no order of that name.
        let orders = try check.orders.values.sorted { $0.row < $1.row }.map { order in
            (order, try newOrder(externalID: order.key, buyerEmail: order.buyerEmail, buyerName: order.buyerName, language: nil))
        }
        let orderOfKey = Dictionary(uniqueKeysWithValues: orders.map { ($0.0.key, $0.1) })
        let newPasses = try tickets.map { row in
            var pass = try newPass(row.ticket, event: event, passType: passType)
            pass.orderID = row.ticket.orderKey.flatMap { orderOfKey[$0]?.id }
            return pass
        }
        let imported: OrderedImport
        var queued = 0
        do {
            imported = try store.transaction { session in
                let imported = try session.passes.importPasses(newPasses, orders: orders.map(\.1), eventID: event.id, now: now())
                let unbuildable = try unbuildableRows(imported.passes, rows: tickets.map(\.row), event: event)
                // Thrown to roll the import back.
                guard unbuildable.isEmpty else { throw UnbuildableRows(problems: unbuildable) }
                // Queued with the tickets: only new ones, and the orders new tickets were issued in
                // (those with a buyer's address; like a ticket without one, an order without is not emailed).
                if notify {
                    let created = imported.passes.filter(\.created).map(\.pass)
                    queued = try session.mail.enqueueEmails(passIDs: created.filter { $0.orderID == nil }.map(\.id), now: now()).count
                    queued += try session.mail.enqueueOrderEmails(orderIDs: Array(Set(created.compactMap(\.orderID))).sorted(), now: now()).count
                }
                return imported
            }
        } catch let refusal as UnbuildableRows {
            return .invalid(refusal.problems)
        }
        var result = TicketImportResult(
            entries: zip(tickets, imported.passes).map { .init(row: $0.row, pass: $1.pass, created: $1.created) }, emailsQueued: notify ? queued : nil
        )
        for (order, new) in orders { result.orders[order.key] = imported.orders[new.id] }
        logger.info("tickets imported", [
            "event.id": event.id, "created": "\(result.created)", "existing": "\(result.existing)", "emails": "\(queued)", "request.id": requestID,
        ])
        if queued > 0 { mail.queued() }
        return .imported(result)
    }

    /// The rows whose pass cannot be built, checked as every change is (rendered and validated,
    /// not signed) inside the import's transaction. One pass per distinct set of extra values is
    /// checked, the first new row's that has it: the attendee's texts are checked at the door to
    /// fit any text field, so what can differ between passes of one event is how the template
    /// uses extra values. (A bulk import would otherwise render every pass: about 0.4 s per
    /// 10,000 rows.)
    func unbuildableRows(_ imported: [ImportedPass], rows: [Int], event: Event) throws -> [RowIssue] {
        var checked = Set<[String: ExtraValue]>()
        var problems: [RowIssue] = []
        for (index, item) in imported.enumerated() where item.created && checked.insert(item.pass.extra).inserted {
            if let reason = try unbuildableReason({ try passes.validate(item.pass, event: event) }) {
                problems.append(RowIssue(row: rows[index], field: "pass", message: reason))
            }
        }
        return problems
    }
}

/// Rows of an import whose pass cannot be built; thrown inside the import's transaction to roll
/// it back.
private struct UnbuildableRows: Error {
    var problems: [RowIssue]
}

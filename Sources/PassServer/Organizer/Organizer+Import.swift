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
        for row in rows {
            if let problem = row.problem {
                problems.append(RowIssue(row: row.number, field: nil, message: problem))
                continue
            }
            let draft = draft(row)
            var check = FieldCheck(reported: draft.unreadable, fields: TicketDraft.fields)
            let ticket = self.check(draft, declared: declared, &check)
            problems += check.allIssues.map { issue in
                let field = byColumn && issue.field.hasPrefix("extra.") ? String(issue.field.dropFirst("extra.".count)) : issue.field
                return RowIssue(row: row.number, field: field, message: issue.message)
            }
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
        return TicketImportCheck(rows: rows, tickets: tickets, problems: problems)
    }

    /// Issues the tickets of a checked upload, all or none; `notify` queues the email of each new
    /// one (a repeated upload emails no one twice). A row whose external id the event already has
    /// returns that ticket.
    func importTickets(_ event: Event, check: TicketImportCheck, notify: Bool, requestID: String) throws -> TicketImportOutcome {
        try requireNotErased(event)
        if notify { try emailCheck(event.template) }
        guard check.problems.isEmpty else { return .invalid(check.problems) }
        let tickets = check.tickets
        let passType = try passType()
        let newPasses = try tickets.map { try newPass($0.ticket, event: event, passType: passType) }
        let imported: [ImportedPass]
        var queued = 0
        do {
            imported = try store.transaction { session in
                let imported = try session.importPasses(newPasses, eventID: event.id, now: now())
                let unbuildable = try unbuildableRows(imported, rows: tickets.map(\.row), event: event)
                // Thrown to roll the import back.
                guard unbuildable.isEmpty else { throw UnbuildableRows(problems: unbuildable) }
                // Queued with the tickets: only new ones.
                queued = notify ? try session.enqueueEmails(passIDs: imported.filter(\.created).map(\.pass.id), now: now()).count : 0
                return imported
            }
        } catch let refusal as UnbuildableRows {
            return .invalid(refusal.problems)
        }
        let result = TicketImportResult(
            entries: zip(tickets, imported).map { .init(row: $0.row, pass: $1.pass, created: $1.created) }, emailsQueued: notify ? queued : nil
        )
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
    private func unbuildableRows(_ imported: [ImportedPass], rows: [Int], event: Event) throws -> [RowIssue] {
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

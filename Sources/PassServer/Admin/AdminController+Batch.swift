import PassIdentifiers
import Foundation
import HTTPServer
import PassBundle
import Storage

extension AdminController {
    /// `POST /admin/v1/events/{eventId}/tickets:batch`: up to 10,000 new tickets from a JSON array
    /// or a CSV text, all or none. Every invalid row is reported and then nothing is issued; a row
    /// whose `externalId` the event already has returns that ticket instead of a new one.
    func importTickets(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var query = AdminInput.query(request)
        let notify = query.choice("notify", ["true", "false"]) == "true"
        try query.validate()
        if notify { try requireEmail(template: event.template) }
        let format = try TicketImport.Format(contentType: request.headers["Content-Type"])
        switch try importTickets(event, check: checkImport(event, format: format, body: request.body), notify: notify, requestID: request.requestID) {
        case .invalid(let problems): return Self.invalidRows(problems)
        case .imported(let body): return .json(body, encoder: .api)
        }
    }

    /// An upload read and checked row by row, nothing issued yet.
    struct ImportCheck {
        /// Every row as read (a spreadsheet's row numbers for CSV).
        var rows: [TicketImport.Row]
        /// The valid rows' tickets.
        var tickets: [(row: Int, input: TicketInput)]
        /// What is wrong, per row and field; empty when every row is valid.
        var problems: [InvalidRowsBody.Problem]
    }

    enum ImportOutcome {
        /// Nothing was issued: these rows are invalid (or their passes cannot be built).
        case invalid([InvalidRowsBody.Problem])
        case imported(TicketBatchBody)
    }

    /// Reads an upload and checks every row as the import would, issuing nothing (the import's
    /// first step, and the dashboard's preview). 400 for an upload that cannot be read at all.
    func checkImport(_ event: Event, format: TicketImport.Format, body: [UInt8]) throws -> ImportCheck {
        let declared = templateFields(of: event)
        let rows = switch format {
        case .json: try TicketImport.rows(json: body)
        case .csv: try TicketImport.rows(csv: body, declared: declared)
        }
        var problems: [InvalidRowsBody.Problem] = []
        var tickets: [(row: Int, input: TicketInput)] = []
        var rowOfExternalID: [String: Int] = [:]
        for row in rows {
            if let problem = row.problem {
                problems.append(.init(row: row.number, field: nil, problem: problem))
                continue
            }
            var input = AdminInput(object: row.object, allowed: TicketInput.fields)
            let ticket = TicketInput.read(&input, declared: declared)
            // CSV names an extra field by its column, JSON by its path.
            problems += input.issues.map { issue in
                let field = format == .csv && issue.field.hasPrefix("extra.") ? String(issue.field.dropFirst("extra.".count)) : issue.field
                return .init(row: row.number, field: field, problem: issue.message)
            }
            guard let ticket else { continue }
            if let externalID = ticket.externalID {
                if let first = rowOfExternalID[externalID] {
                    problems.append(.init(row: row.number, field: "externalId", problem: "repeats the externalId of row \(first)"))
                    continue
                }
                rowOfExternalID[externalID] = row.number
            }
            tickets.append((row.number, ticket))
        }
        return ImportCheck(rows: rows, tickets: tickets, problems: problems)
    }

    /// Issues the tickets of a checked upload, all or none.
    func importTickets(_ event: Event, check: ImportCheck, notify: Bool, requestID: String) throws -> ImportOutcome {
        if notify { try requireEmail(template: event.template) }
        guard check.problems.isEmpty else { return .invalid(check.problems) }
        let tickets = check.tickets
        guard let passType = passes.passType else { throw HTTPError.internalError }
        let newPasses = try tickets.map { try newPass($0.input, event: event, passType: passType) }
        let imported: [ImportedPass]
        var queued = 0
        do {
            imported = try store.transaction { session in
                let imported = try session.importPasses(newPasses, eventID: event.id, now: now())
                let unbuildable = try unbuildableRows(imported, rows: tickets.map(\.row), event: event)
                // Thrown to roll the import back.
                guard unbuildable.isEmpty else { throw UnbuildableRows(problems: unbuildable) }
                // Queued with the tickets: only new ones (a repeated upload emails no one twice).
                queued = notify ? try session.enqueueEmails(passIDs: imported.filter(\.created).map(\.pass.id), now: now()).count : 0
                return imported
            }
        } catch let refusal as UnbuildableRows {
            return .invalid(refusal.problems)
        }
        let entries = try zip(tickets, imported).map { ticket, result in
            TicketBatchBody.Entry(
                row: ticket.row, outcome: result.created ? "created" : "existing", pass: result.pass,
                downloadURL: try downloadURL(for: result.pass)
            )
        }
        let created = imported.count { $0.created }
        logger.info("tickets imported", [
            "event.id": event.id, "created": "\(created)", "existing": "\(imported.count - created)", "emails": "\(queued)",
            "request.id": requestID,
        ])
        if queued > 0 { mail.queued() }
        return .imported(TicketBatchBody(created: created, existing: imported.count - created, emailsQueued: notify ? queued : nil, tickets: entries))
    }

    /// The 400 `invalid_rows` answer listing every problem.
    private static func invalidRows(_ problems: [InvalidRowsBody.Problem]) -> Response {
        let count = Set(problems.map(\.row)).count
        let message = "\(count) \(count == 1 ? "row is" : "rows are") invalid; no ticket was issued."
        return .json(InvalidRowsBody(error: .init(code: "invalid_rows", message: message, problems: problems)), status: 400, encoder: .api)
    }

    /// The rows whose pass cannot be built, checked as every change is (rendered and validated,
    /// not signed) inside the import's transaction. One pass per distinct set of extra values is
    /// checked, the first new row's that has it: the attendee's texts are checked at the door to
    /// fit any text field, so what can differ between passes of one event is how the template
    /// uses extra values. (A bulk import would otherwise render every pass: about 0.4 s per
    /// 10,000 rows.)
    private func unbuildableRows(_ imported: [ImportedPass], rows: [Int], event: Event) throws -> [InvalidRowsBody.Problem] {
        var checked = Set<[String: ExtraValue]>()
        var problems: [InvalidRowsBody.Problem] = []
        for (index, item) in imported.enumerated() where item.created && checked.insert(item.pass.extra).inserted {
            if let reason = try unbuildableReason({ try passes.validate(item.pass, event: event) }) {
                problems.append(.init(row: rows[index], field: "pass", problem: reason))
            }
        }
        return problems
    }

    /// The extra fields the event's template declares (none if it cannot be loaded).
    func templateFields(of event: Event) -> [TemplateField] {
        (try? passes.templates.template(named: event.template))?.fields ?? []
    }

    /// A new pass for `ticket`: a random serial number and the tokens derived from it.
    func newPass(_ ticket: TicketInput, event: Event, passType: PassTypeIdentifier) throws -> NewPass {
        // 120 random bits: unguessable, and valid in URLs and pass.json as is.
        guard let serial = SerialNumber(Crypto.randomToken(bytes: 15)) else { throw HTTPError.internalError }
        return NewPass(
            passTypeIdentifier: passType, serialNumber: serial,
            authenticationTokenHash: try TokenVault.hash(passes.vault.authenticationToken(passType: passType, serial: serial).rawValue),
            downloadTokenHash: try TokenVault.hash(passes.vault.downloadToken(passType: passType, serial: serial)),
            eventID: event.id, attendeeName: ticket.attendeeName, attendeeEmail: ticket.attendeeEmail, seat: ticket.seat,
            externalID: ticket.externalID, extra: ticket.extra, language: ticket.language
        )
    }
}

/// Rows of an import whose pass cannot be built; thrown inside the import's transaction to roll
/// it back.
private struct UnbuildableRows: Error {
    var problems: [InvalidRowsBody.Problem]
}

import Foundation
import HTTPServer
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
        let check = try checkImport(event, format: format, body: request.body)
        switch try organizer.importTickets(event, check: check, notify: notify, requestID: request.requestID) {
        case .invalid(let problems): return Self.invalidRows(problems)
        case .imported(let result): return .json(try TicketBatchBody(result, downloadURL: downloadURL(for:)), encoder: .api)
        }
    }

    /// Reads an upload and checks every row as the import would, issuing nothing (the import's
    /// first step, and the dashboard's preview). `TicketImport.Unreadable` (a 400) for an upload
    /// that cannot be read at all.
    func checkImport(_ event: Event, format: TicketImport.Format, body: [UInt8]) throws(TicketImport.Unreadable) -> TicketImportCheck {
        let rows = switch format {
        case .json: try TicketImport.rows(json: body)
        case .csv: try TicketImport.rows(csv: body, declared: templateFields(of: event))
        }
        return organizer.checkImport(event, rows: rows, byColumn: format == .csv) { row in
            var input = AdminInput(object: row.object, allowed: TicketInput.rowFields)
            return input.ticketDraft()
        }
    }

    /// The 400 `invalid_rows` answer listing every problem.
    private static func invalidRows(_ problems: [RowIssue]) -> Response {
        let count = Set(problems.map(\.row)).count
        let message = "\(count) \(count == 1 ? "row is" : "rows are") invalid; no ticket was issued."
        let body = InvalidRowsBody(error: .init(code: "invalid_rows", message: message, problems: problems.map(InvalidRowsBody.Problem.init)))
        return .json(body, status: 400, encoder: .api)
    }
}

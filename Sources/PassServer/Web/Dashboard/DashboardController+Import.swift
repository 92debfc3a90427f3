import Foundation
import HTTPServer
import PassBundle
import Storage

extension DashboardController {
    /// `POST /admin/events/{id}/import`: `step=check` shows every row and its problems, issuing
    /// nothing; `step=issue` issues the checked rows (all or none) with the import of the admin API.
    func importTickets(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        if form.file("file")?.isBinaryFile == true {
            return importPage(event, visitor, csv: "", check: nil, error: Self.notText)
        }
        let csv = form.nonEmpty("file") ?? form["csv"] ?? ""
        guard csv.utf8.count <= TicketImport.maxBodySize else {
            return importPage(event, visitor, csv: "", check: nil, error: Self.uploadTooLarge)
        }
        let check: TicketImportCheck
        do {
            check = try admin.checkImport(event, format: .csv, body: Array(csv.utf8))
        } catch {
            return importPage(event, visitor, csv: csv, check: nil, error: error.errorMessage)
        }
        guard form["step"] == "issue", check.problems.isEmpty else {
            return importPage(event, visitor, csv: csv, check: check, error: nil)
        }
        switch try organizer.importTickets(event, check: check, notify: form["notify"] == "true", requestID: request.requestID) {
        case .invalid(let problems):
            var refused = check
            refused.problems = problems
            return importPage(event, visitor, csv: csv, check: refused, error: nil)
        case .imported(let result):
            return Self.redirect("/admin/events/\(event.id)?notice=imported&count=\(result.created)")
        }
    }

    static let notText = "The file is not UTF-8 text; save the spreadsheet as CSV (UTF-8) and upload that."

    /// The check page of an upload, 400 when the upload could not be read.
    private func importPage(_ event: Event, _ visitor: DashboardSessions.Visitor, csv: String, check: TicketImportCheck?, error: String?) -> Response {
        let page = ImportPage(
            event: event, visitor: visitor, templateFields: organizer.templateFields(of: event), mailEnabled: admin.mail.isEnabled, csv: csv,
            check: check, error: error
        )
        return .html(page.render(), status: error == nil ? 200 : 400)
    }
}

import Foundation
import PassBundle
import Storage

/// The check page of a CSV import (`POST /admin/events/{id}/import`, `step=check`): every row and
/// its problems, and what can be done next: issue (no problems) or fix the text and check again.
///
/// What it shows is bounded whatever the upload: the first `shownRows` rows (invalid ones first)
/// with each cell and each row's problems cut to a few hundred characters, and the upload itself
/// carried over to the page (in the text box and in the issue form) only up to `carriedLimit`
/// bytes. A larger file is chosen again to issue it.
struct ImportPage {
    /// Rows a check page lists.
    static let shownRows = 500
    /// Characters of a cell, and of a row's problems, that a check page shows.
    static let shownCell = 120
    static let shownProblems = 400
    /// The largest upload a check page carries over (about 10,000 rows of a name, an address and
    /// a seat); larger ones are not echoed back.
    static let carriedLimit = 1 << 20

    var event: Event
    var visitor: DashboardSessions.Visitor
    var templateFields: [TemplateField] = []
    var mailEnabled = false
    /// The upload as text.
    var csv: String
    /// The rows as checked; nil when the upload could not be read (then `error` says why).
    var check: TicketImportCheck?
    var error: String?

    func render() -> HTML {
        let id = event.id
        let carried = csv.utf8.count <= Self.carriedLimit ? csv : nil
        var body: HTML = """
            <p class="crumbs"><a href="/admin/">Events</a> › <a href="/admin/events/\(id)">\(event.name)</a></p>
            <h1>Import tickets: check</h1>
            """
        if let check {
            let byRow = Dictionary(grouping: check.problems, by: \.row)
            let invalid = byRow.count
            body += invalid == 0
                ? #"<p class="notice ok" role="status" id="import-summary">All \#(check.rows.count) rows are valid. Nothing has been issued yet.</p>"#
                : #"<p class="notice error" role="alert" id="import-summary">\#(invalid) of \#(check.rows.count) \#(check.rows.count == 1 ? "row is" : "rows are") invalid; nothing was issued. Fix them below and check again.</p>"#
            var rows = HTML.empty
            let ordered = check.rows.sorted { (byRow[$0.number] != nil ? 0 : 1, $0.number) < (byRow[$1.number] != nil ? 0 : 1, $1.number) }
            for row in ordered.prefix(Self.shownRows) {
                let problems = (byRow[row.number] ?? []).map { ($0.field.map { "\($0): " } ?? "") + $0.message }
                func cell(_ key: String) -> String {
                    if case .string(let text)? = row.object[key] { return Self.cut(text, Self.shownCell) }
                    return ""
                }
                rows += """
                    <tr class="\(problems.isEmpty ? "" : "invalid")"><td class="num">\(row.number)</td><td>\(cell("attendeeName"))</td>
                    <td>\(cell("attendeeEmail"))</td><td>\(cell("seat"))</td>
                    <td class="\(problems.isEmpty ? "status-ok" : "status-bad")">\(problems.isEmpty ? "ok" : Self.cut(problems.joined(separator: "; "), Self.shownProblems))</td></tr>
                    """
            }
            body += """
                <div class="table-wrap"><table id="import-rows"><caption class="sr-only">Rows of the upload</caption>
                <thead><tr><th scope="col">Row</th><th scope="col">Attendee</th><th scope="col">Email</th><th scope="col">Seat</th><th scope="col">Check</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                \(check.rows.count > Self.shownRows ? #"<p class="muted">Showing \#(Self.shownRows) of \#(check.rows.count) rows (invalid ones first).</p>"# as HTML : "")
                """
            if invalid == 0 {
                let notify: HTML = mailEnabled
                    ? #"<p><input type="checkbox" id="f-notify" name="notify" value="true"> <label for="f-notify" class="inline">Email each new ticket to its attendee</label></p>"#
                    : ""
                // A large file is not carried over: the organizer chooses it again.
                let upload: HTML = carried.map { #"<input type="hidden" name="csv" value="\#($0)">"# as HTML } ?? """
                    <p class="muted">The file is too large to carry over to this page: choose it again to issue its tickets.</p>
                    <label for="f-issue-file">CSV file</label><input id="f-issue-file" name="file" type="file" accept=".csv,text/csv" required>
                    """
                body += """
                    <form method="post" action="/admin/events/\(id)/import" enctype="multipart/form-data">\(DashboardLayout.csrf(visitor))
                    \(upload)<input type="hidden" name="step" value="issue">
                    \(notify)
                    <p><button type="submit" id="issue-tickets">Issue \(check.rows.count) \(check.rows.count == 1 ? "ticket" : "tickets")</button>
                    <a href="/admin/events/\(id)">Cancel</a></p>
                    </form>
                    """
            }
        }
        if carried == nil {
            body += #"<p class="muted" id="import-not-carried">The upload is too large to show again here: fix it in the file and choose it again.</p>"#
        }
        body += Self.form(event, visitor, templateFields: templateFields, csv: carried ?? "")
        let notice = error.map { DashboardLayout.Notice(text: $0, isError: true) }
        return DashboardLayout.page(title: "Import tickets", visitor: visitor, notice: notice, body: body)
    }

    /// The import form: a CSV file, or CSV text pasted (shown again, editable, after a check);
    /// folded away on the event page (`csv` nil).
    static func form(_ event: Event, _ visitor: DashboardSessions.Visitor, templateFields: [TemplateField], csv: String?) -> HTML {
        let columns = (TicketImport.columns + templateFields.map(\.name)).joined(separator: ", ")
        return """
            <details\(csv == nil ? "" : " open")><summary><h2 class="inline">Import tickets from CSV</h2></summary>
            <form method="post" action="/admin/events/\(event.id)/import" enctype="multipart/form-data" class="stack">\(DashboardLayout.csrf(visitor))
            <p class="muted">The header row names the columns: \(columns). Nothing is issued until you have checked the rows.</p>
            <label for="f-file">CSV file</label><input id="f-file" name="file" type="file" accept=".csv,text/csv">
            <label for="f-csv">Or the CSV text</label><textarea id="f-csv" name="csv" rows="8" spellcheck="false">\(csv ?? "")</textarea>
            <input type="hidden" name="step" value="check">
            <p><button type="submit">Check rows</button></p>
            </form></details>
            """
    }

    /// `text` cut to `limit` characters, an ellipsis marking the cut.
    static func cut(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "…"
    }
}

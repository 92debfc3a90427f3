import Foundation
import HTTPServer
import PassBundle

/// An uploaded batch of new tickets, a JSON array or a CSV text, turned into one object per row in
/// the shape of a `POST …/tickets` body, each with the number errors name it by.
///
/// Row numbers: in CSV the record number, the header being row 1 (a spreadsheet's row number);
/// in JSON the index in the array, from 0.
enum TicketImport {
    struct Row {
        var number: Int
        var object: [String: JSONValue]
        /// What makes the whole row unreadable (not an object; a cell count other than the
        /// header's), checked before its fields.
        var problem: String?

        init(number: Int, object: [String: JSONValue], problem: String? = nil) {
            self.number = number
            self.object = object
            self.problem = problem
        }
    }

    enum Format {
        case json
        case csv

        /// The format `Content-Type` names: `application/json`, or `text/csv` in UTF-8.
        init(contentType: String?) throws(HTTPError) {
            let parts = (contentType ?? "").lowercased().split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            switch parts.first {
            case "application/json":
                self = .json
            case "text/csv":
                let charset = parts.dropFirst().first { $0.hasPrefix("charset=") }.map { $0.dropFirst("charset=".count) }
                guard charset == nil || charset == "utf-8" || charset == "\"utf-8\"" else {
                    throw HTTPError.badRequest("A CSV upload must be UTF-8 (charset=utf-8).", code: "unsupported_content_type")
                }
                self = .csv
            default:
                throw HTTPError.badRequest("Content-Type must be application/json or text/csv.", code: "unsupported_content_type")
            }
        }
    }

    /// The most rows one upload may hold.
    static let maxRows = 10_000
    /// The largest upload in bytes: room for 10,000 rows of about 1.6 KB each, far more than
    /// attendee lists hold.
    static let maxBodySize = 16 << 20
    /// The CSV columns of every template; its declared extra fields add theirs. Rows sharing an
    /// `orderId` are one order, whose buyer `buyerEmail` and `buyerName` name.
    static let columns = ["attendeeName", "attendeeEmail", "seat", "externalId", "language", "orderId", "buyerEmail", "buyerName"]

    /// Why an upload cannot be read at all: answered 400 with its code, shown by the dashboard
    /// above the upload.
    struct Unreadable: Error, Equatable, RenderableError {
        var errorCode: String
        var errorMessage: String
        var status: Int { 400 }

        init(_ message: String, code: String) {
            errorCode = code
            errorMessage = message
        }
    }

    static var tooManyRows: Unreadable {
        Unreadable("An upload holds at most \(maxRows) tickets; split it.", code: "too_many_rows")
    }

    static var noRows: Unreadable {
        Unreadable("The upload holds no tickets.", code: "no_rows")
    }

    /// The elements of a JSON array (each checked later as a ticket body).
    static func rows(json body: [UInt8]) throws(Unreadable) -> [Row] {
        // JSONDecoder, as for every admin body (JSONSerialization drops a byte order mark that
        // starts a string).
        guard case .array(let array)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body)) else {
            throw Unreadable("The body must be a JSON array of ticket objects.", code: "malformed_json")
        }
        guard array.count <= maxRows else { throw tooManyRows }
        guard !array.isEmpty else { throw noRows }
        return array.enumerated().map { index, element in
            guard case .object(let object) = element else { return Row(number: index, object: [:], problem: "must be an object") }
            return Row(number: index, object: object)
        }
    }

    /// The data rows of a CSV text whose header names the columns (in any order): the template's
    /// columns, the declared extra fields', the columns an export reports (skipped), and nothing
    /// else. Blank rows are skipped; an empty cell is an absent field; a cell's formula guard (an
    /// apostrophe an export wrote before `=`, `+`, `-`, `@`…) is removed.
    static func rows(csv body: [UInt8], declared: [TemplateField]) throws(Unreadable) -> [Row] {
        var parser = CSV.Parser()
        var header: [Column]?
        var rows: [Row] = []
        let collect: (CSV.Record) throws -> Void = { record in
            guard let columns = header else {
                header = try Self.header(record, declared: declared)
                return
            }
            if record.isBlank { return }
            guard rows.count < maxRows else { throw tooManyRows }
            guard record.fields.count == columns.count else {
                let problem = "has \(record.fields.count) cells, the header has \(columns.count)"
                rows.append(Row(number: record.number, object: [:], problem: problem))
                return
            }
            rows.append(Row(number: record.number, object: Self.object(record, columns: columns)))
        }
        do {
            try parser.parse(body, collect)
            try parser.finish(collect)
        } catch let error as Unreadable {
            throw error
        } catch let error as CSV.ParseError {
            throw Unreadable("The CSV cannot be read: \(error).", code: "invalid_csv")
        } catch {
            throw Unreadable("The CSV cannot be read.", code: "invalid_csv")
        }
        guard header != nil else { throw Unreadable("The CSV has no header row.", code: "invalid_columns") }
        guard !rows.isEmpty else { throw noRows }
        return rows
    }

    /// Where a CSV column's cells go.
    private enum Column {
        case base(String)
        case extra(TemplateField)
        /// What an export reports (`TicketExport.reportedColumns`): read past, so an export
        /// imports again as it is.
        case reported
    }

    private static func header(_ record: CSV.Record, declared: [TemplateField]) throws(Unreadable) -> [Column] {
        var problems: [String] = []
        var columns: [Column] = []
        var seen = Set<String>()
        for raw in record.fields {
            let name = raw.trimmingCharacters(in: .whitespaces)
            if !seen.insert(name).inserted { problems.append("\(shown(name)): appears twice") }
            if Self.columns.contains(name) {
                columns.append(.base(name))
            } else if let field = declared.first(where: { $0.name == name }) {
                columns.append(.extra(field))
            } else if TicketExport.reportedColumns.contains(name) {
                columns.append(.reported)
            } else {
                problems.append("\(shown(name)): unknown column")
            }
        }
        if !seen.contains("attendeeName") { problems.append("attendeeName: the column is required") }
        for field in declared where field.required && !seen.contains(field.name) {
            problems.append("\(field.name): the column is required by the template")
        }
        guard problems.isEmpty else {
            let known = (Self.columns + declared.map(\.name)).joined(separator: ", ")
            throw Unreadable(
                "The CSV header row is invalid: \(problems.joined(separator: "; ")). Columns: \(known).", code: "invalid_columns"
            )
        }
        return columns
    }

    /// `cell` without leading and trailing white space (Unicode's White_Space: spaces, tabs,
    /// line breaks), cut at Unicode scalars.
    static func trimmed(_ cell: String) -> String {
        let scalars = cell.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    /// A column name as the answer quotes it (`HTTPError.quoting`), an empty one as `(empty)`.
    private static func shown(_ name: String) -> String {
        name.isEmpty ? "(empty)" : HTTPError.quoting(name)
    }

    /// A row as a ticket body. Each cell loses its leading and trailing white space first, line
    /// breaks included: a spreadsheet easily leaves a newline inside a quoted name, and names are
    /// trimmed everywhere else. A control character inside a cell is still refused (by the
    /// ticket's own checks); a cell of only white space is an empty one.
    private static func object(_ record: CSV.Record, columns: [Column]) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        var extra: [String: JSONValue] = [:]
        for (column, raw) in zip(columns, record.fields) {
            let guarded = trimmed(raw)
            guard !guarded.isEmpty else { continue }
            let cell = CSV.removingFormulaGuard(guarded)
            switch column {
            case .base(let name):
                object[name] = .string(cell)
            case .extra(let field):
                // Cells are text: a whole number becomes a number for an integer field.
                if case .integer = field.kind, let number = Int64(cell.trimmingCharacters(in: .whitespaces)),
                    abs(number) <= TemplateField.largestInteger
                {
                    extra[field.name] = .number(Double(number))
                } else {
                    extra[field.name] = .string(cell)
                }
            case .reported:
                continue
            }
        }
        if !extra.isEmpty { object["extra"] = .object(extra) }
        return object
    }
}

import HTTPServer

/// Why an organizer operation was refused. Every transport shows it its own way: the admin API
/// renders it once as its JSON error (`RenderableError`), the dashboard shows a form again with
/// each `Issue` next to its field. Operations under `Organizer/`, `CheckIn/`, `Mail/` and `Reach/`
/// throw this and never `HTTPError`.
enum OrganizerError: Error, Equatable, Sendable {
    /// One invalid field and what is wrong with it. `field` is the name the API documents
    /// (`attendeeName`, `extra.tier`, `tickets[3].seat`); a form names its inputs the same way.
    struct Issue: Equatable, Sendable, CustomStringConvertible {
        var field: String
        var message: String

        init(_ field: String, _ message: String) {
            self.field = field
            self.message = message
        }

        init(field: String, message: String) {
            self.init(field, message)
        }

        var description: String { "\(field): \(message)" }
    }

    /// The input breaks the rules: every problem found, not only the first.
    case invalid([Issue])
    /// What was named does not exist (`"No such event."`).
    case notFound(String)
    /// The request is valid but the state forbids it (`ticket_cancelled`, `external_id_exists`).
    case conflict(code: String, message: String)
    /// The caller may not do this.
    case forbidden(String)

    /// One invalid field.
    static func invalid(_ field: String, _ message: String) -> OrganizerError {
        .invalid([Issue(field, message)])
    }

    /// The problems of `field`, in order.
    func issues(of field: String) -> [Issue] {
        guard case .invalid(let issues) = self else { return [] }
        return issues.filter { $0.field == field }
    }
}

extension OrganizerError: RenderableError {
    var status: Int {
        switch self {
        case .invalid: 400
        case .notFound: 404
        case .conflict: 409
        case .forbidden: 403
        }
    }

    var errorCode: String {
        switch self {
        case .invalid: "invalid_fields"
        case .notFound: "not_found"
        case .conflict(let code, _): code
        case .forbidden: "forbidden"
        }
    }

    var errorMessage: String {
        switch self {
        case .invalid(let issues): issues.map(\.description).joined(separator: "; ")
        case .notFound(let message), .conflict(_, let message), .forbidden(let message): message
        }
    }
}

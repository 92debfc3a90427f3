import HTTPServer

/// A form as a page shows it: the values to fill in (the stored ones, or what was submitted) and,
/// after a refusal, what was wrong: each issue next to its field, a refusal that is about no
/// field (a conflict) above the form.
struct FormState {
    var values: [String: String]
    var issues: [OrganizerError.Issue] = []
    /// A refusal not about one field.
    var message: String?
    /// 400 for invalid fields, 409 for a conflict, 200 otherwise.
    var status = 200

    init(values: [String: String] = [:]) {
        self.values = values
    }

    /// What was submitted, over `values`.
    init(_ form: FormFields, over values: [String: String] = [:]) {
        self.values = values
        var seen = Set<String>()
        for field in form.fields where seen.insert(field.name).inserted {
            self.values[field.name] = field.value
        }
    }

    /// The form after `refusal`, or nil for a refusal no form can fix (`notFound`, `forbidden`):
    /// those are shown as an error page.
    func refused(_ refusal: OrganizerError) -> FormState? {
        var state = self
        switch refusal {
        case .invalid(let issues):
            state.issues = issues
            state.status = 400
        case .conflict(_, let message):
            state.message = message
            state.status = 409
        case .notFound, .forbidden:
            return nil
        }
        return state
    }

    func value(_ name: String) -> String? { values[name] }

    /// The problems of the field `name`, to show under it.
    func issues(_ name: String) -> [String] {
        issues.filter { $0.field == name }.map(\.message)
    }

    /// The notice above the form: the conflict's message, or that fields are marked, with the
    /// issues of fields the form does not show (`shown`: the names of its fields) spelled out.
    func notice(shown: [String]) -> DashboardLayout.Notice? {
        if let message { return DashboardLayout.Notice(text: message, isError: true) }
        guard !issues.isEmpty else { return nil }
        let elsewhere = issues.filter { !shown.contains($0.field) }
        let text = elsewhere.isEmpty
            ? "Nothing was saved: check the \(issues.count == 1 ? "field" : "fields") marked below."
            : "Nothing was saved: " + elsewhere.map(\.description).joined(separator: "; ")
                + (elsewhere.count < issues.count ? "; and the fields marked below." : ".")
        return DashboardLayout.Notice(text: text, isError: true)
    }
}

import Foundation
import PassBundle

/// The templates (`GET /admin/templates`): the folders under the templates directory and the
/// uploaded Pass Designer templates, and, for admins, the upload form; after a refused upload the
/// form again with every reason under its field.
struct TemplatesPage {
    var templates: [TemplateSummary]
    var visitor: DashboardSessions.Visitor
    /// The upload form: the name typed and, after a refusal, its issues and the archive's.
    var form = FormState()
    var notice: DashboardLayout.Notice?

    func render() -> HTML {
        var rows = HTML.empty
        for template in templates {
            let origin: HTML = template.origin == .file ? "Folder" : "Uploaded"
            let state: HTML = template.problem.map { #"<span class="status-bad">does not load: \#($0)</span>"# as HTML }
                ?? "\(template.fields.count) \(template.fields.count == 1 ? "field" : "fields")"
            rows += """
                <tr><td><a href="\(url: "/admin/templates/" + Self.pathComponent(template.name))">\(template.name)</a></td><td>\(origin)</td>
                <td>\(state)</td><td>\(template.extraFields.isEmpty ? "–" : template.extraFields.joined(separator: ", "))</td>
                <td>\(template.updatedAt.map { DashboardLayout.dateText($0, timeZone: "UTC") } ?? "")</td></tr>
                """
        }
        let table: HTML = templates.isEmpty
            ? #"<p class="muted">No templates.</p>"#
            : """
                <div class="table-wrap"><table id="templates"><caption class="sr-only">Templates</caption>
                <thead><tr><th scope="col">Template</th><th scope="col">From</th><th scope="col">Fields</th><th scope="col">Ticket fields</th><th scope="col">Changed</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        var body: HTML = """
            <p class="crumbs"><a href="/admin/">Events</a> › Templates</p>
            <h1>Templates</h1>
            <p class="muted">An event's passes are made from its template: a folder in the templates directory, or a template made with Apple's Pass Designer and uploaded here.</p>
            \(table)
            """
        if visitor.canWrite { body += Self.uploadForm(visitor, form: form) }
        return DashboardLayout.page(title: "Templates", visitor: visitor, notice: notice ?? form.notice(shown: ["name", "archive"]), body: body)
    }

    /// The upload form: a name and the zipped `.pkpasstemplate` folder.
    static func uploadForm(_ visitor: DashboardSessions.Visitor, form: FormState) -> HTML {
        let archiveIssues = form.issues("archive")
        let errors: HTML? = archiveIssues.isEmpty ? nil : """
            <ul class="field-error" id="f-file-error">\(archiveIssues.map { "<li>\($0)</li>" as HTML })</ul>
            """
        let invalid: HTML? = archiveIssues.isEmpty ? nil : #" aria-invalid="true" aria-describedby="f-file-error""#
        return """
            <h2>Upload a Pass Designer template</h2>
            <form method="post" action="/admin/templates" enctype="multipart/form-data" class="stack" id="upload-template">\(DashboardLayout.csrf(visitor))
            \(DashboardLayout.field(
                "name", label: "Name", value: form.value("name"), attributes: "required maxlength=64",
                hint: "Lowercase letters, digits and hyphens (spring-gala). Uploading under the name of an uploaded template replaces it.",
                issues: form.issues("name")
            ))
            <label for="f-file">Zipped .pkpasstemplate folder (at most \(AdminController.templateBodyLimit >> 20) MiB)</label>
            <input id="f-file" name="file" type="file" accept=".zip,application/zip" required\(invalid)>\(errors)
            <p><button type="submit">Upload</button></p>
            </form>
            """
    }

    /// A template name as a path component (names of folders may hold any character).
    static func pathComponent(_ name: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// One template (`GET /admin/templates/{name}`): its fields and, for an uploaded one, the notes of
/// its import and the mapping form, where an admin chooses the ticket data each field shows.
struct TemplatePage {
    var template: TemplateSummary
    var visitor: DashboardSessions.Visitor
    /// The mapping form (`mapping.<key>` → source) as stored, or as submitted after a refusal.
    var form: FormState
    var notice: DashboardLayout.Notice?

    init(template: TemplateSummary, visitor: DashboardSessions.Visitor, form: FormState? = nil, notice: DashboardLayout.Notice? = nil) {
        self.template = template
        self.visitor = visitor
        self.form = form ?? FormState(values: Self.values(of: template))
        self.notice = notice
    }

    /// The mapping form's values as stored.
    static func values(of template: TemplateSummary) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (template.mapping ?? [:]).map { ("mapping." + $0.key, $0.value.rawValue) })
    }

    /// The ticket data a field can show, as (source, text), in the order the form lists them.
    static let sourceTexts: [(FieldSource, String)] = [
        (.constant, "The designer's value (the same on every pass)"), (.attendeeName, "Attendee name"), (.seat, "Seat"),
        (.eventName, "Event name"), (.venue, "Venue"), (.startsAt, "Start (date and time)"), (.endsAt, "End (date and time)"),
        (.serialNumber, "Serial number"), (.status, "Ticket status"),
    ]

    func render() -> HTML {
        let name = template.name
        var body: HTML = """
            <p class="crumbs"><a href="/admin/">Events</a> › <a href="/admin/templates">Templates</a> › \(name)</p>
            <h1>Template \(name)</h1>
            """
        body += template.origin == .file
            ? #"<p class="muted">A folder in the templates directory: its fields are set in its pass.json.</p>"#
            : #"<p class="muted">Uploaded from Pass Designer\#(template.updatedAt.map { ", changed \(DashboardLayout.dateText($0, timeZone: "UTC"))" as HTML })).</p>"#
        if let problem = template.problem { body += #"<p class="notice error" role="alert">This template does not load: \#(problem)</p>"# }
        if !template.notes.isEmpty {
            body += """
                <h2>What the import changed</h2>
                <ul id="import-notes">\(template.notes.map { "<li>\($0)</li>" as HTML })</ul>
                """
        }
        if let mapping = template.mapping {
            body += mappingForm(mapping)
        } else {
            body += fieldsTable
        }
        if !template.extraFields.isEmpty {
            body += #"<p>Ticket fields of their own (given per ticket, or in a CSV column of that name): \#(template.extraFields.joined(separator: ", ")).</p>"#
        }
        let shown = template.fields.map { "mapping." + $0.key }
        return DashboardLayout.page(title: "Template \(name)", visitor: visitor, notice: notice ?? form.notice(shown: shown), body: body)
    }

    /// A folder template's fields: what each shows, as its pass.json says.
    private var fieldsTable: HTML {
        guard !template.fields.isEmpty else { return #"<p class="muted">The pass has no fields.</p>"# }
        let rows = template.fields.map { field in
            "<tr><td>\(field.key)</td><td>\(field.label ?? "")</td><td>\(field.value ?? "")</td><td>\(field.area)</td></tr>" as HTML
        }
        return """
            <h2>Fields</h2>
            <div class="table-wrap"><table id="template-fields"><caption class="sr-only">Fields of the pass</caption>
            <thead><tr><th scope="col">Key</th><th scope="col">Label</th><th scope="col">Value</th><th scope="col">Area</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            """
    }

    /// An uploaded template's fields, each with the ticket data it shows: a select per field for
    /// an admin, the choice as text for a viewer.
    private func mappingForm(_ mapping: [String: FieldSource]) -> HTML {
        guard !template.fields.isEmpty else { return #"<p class="muted">The pass has no fields to map.</p>"# }
        var rows = HTML.empty
        for (index, field) in template.fields.enumerated() {
            let fieldName = "mapping." + field.key
            let chosen = form.value(fieldName) ?? (mapping[field.key] ?? .constant).rawValue
            let issues = form.issues(fieldName)
            let id = "f-mapping-\(index)"
            let cell: HTML
            if visitor.canWrite {
                let options = HTML(joining: Self.options(for: field, chosen: chosen).map { value, text in
                    #"<option value="\#(value)"\#(value == chosen ? " selected" as HTML : "")>\#(text)</option>"# as HTML
                })
                let errors: HTML? = issues.isEmpty ? nil : #"<p class="field-error" id="\#(id)-error">\#(issues.joined(separator: "; "))</p>"#
                let invalid: HTML? = issues.isEmpty ? nil : #" aria-invalid="true" aria-describedby="\#(id)-error""#
                cell = """
                    <label class="sr-only" for="\(id)">What \(field.key) shows</label><select id="\(id)" name="\(fieldName)"\(invalid)>\(options)</select>\(errors)
                    """
            } else {
                let text = Self.options(for: field, chosen: chosen).first(where: { $0.0 == chosen })?.1 ?? chosen
                cell = "\(text)"
            }
            rows += """
                <tr\(issues.isEmpty ? "" : #" class="invalid""# as HTML)><td>\(field.key)</td><td>\(field.label ?? "")</td>
                <td>\(field.value ?? "")\(field.isDate ? #" <span class="tag">date</span>"# as HTML : "")</td><td>\(field.area)</td><td>\(cell)</td></tr>
                """
        }
        let table: HTML = """
            <div class="table-wrap"><table id="template-mapping"><caption class="sr-only">Fields found and the ticket data each shows</caption>
            <thead><tr><th scope="col">Field</th><th scope="col">Label</th><th scope="col">Designer's value</th><th scope="col">Area</th><th scope="col">Shows</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            """
        let intro: HTML = """
            <h2>Fields found</h2>
            <p class="muted">The designer's values are samples. Choose the ticket data each field shows on every pass; a field left at the designer's value shows it on every pass.</p>
            """
        guard visitor.canWrite else { return intro + table }
        return """
            \(intro)
            <form method="post" action="\(url: "/admin/templates/" + TemplatesPage.pathComponent(template.name) + "/mapping")" class="stack" id="template-mapping-form">\(DashboardLayout.csrf(visitor))
            \(table)
            <p class="muted">Saving a change updates every pass of the events using this template, and their phones.</p>
            <p><button type="submit">Save mapping</button></p>
            </form>
            """
    }

    /// The choices of a field: the ticket data, a ticket field of its own named after the field's
    /// key (when the key can name one), and the current choice when it is another extra field.
    static func options(for field: TemplateSummary.Field, chosen: String) -> [(String, String)] {
        var options = sourceTexts.map { ($0.0.rawValue, $0.1) }
        if PassDesignerTemplate.extraNameProblem(field.key) == nil {
            options.append(("extra.\(field.key)", "A ticket field of its own (\(field.key))"))
        }
        if case .extra(let name)? = FieldSource(rawValue: chosen), !options.contains(where: { $0.0 == chosen }) {
            options.append((chosen, "A ticket field of its own (\(name))"))
        }
        return options
    }
}

import Foundation
import PassBundle
import Storage

/// A template as organizers see it: where it comes from, the fields of its pass and, for an
/// uploaded one, which ticket data each field shows.
struct TemplateSummary: Sendable, Equatable {
    /// One field of the pass (a field dictionary of `eventTicket`).
    struct Field: Sendable, Equatable {
        var key: String
        /// The label as written (a text or a `pass.strings` key); nil without one.
        var label: String?
        /// The value as the template holds it: an uploaded template's sample ("John Appleseed"),
        /// a folder template's text with its placeholders (`{{attendeeName}}`); nil without one.
        var value: String?
        /// The group of fields it is in, as Wallet names them without `Fields`: `header`,
        /// `primary`, `secondary`, `auxiliary`, `back` or `additionalInfo`.
        var area: String
        /// Whether Wallet shows the value as a date.
        var isDate = false
    }

    var name: String
    var origin: TemplateLibrary.Origin
    var fields: [Field]
    /// The extra per-ticket fields tickets of the template carry (`extra.<name>`), sorted.
    var extraFields: [String]
    /// An uploaded template's choice of ticket data per field, by key (every field is named;
    /// `constant` keeps the designer's value); nil for a folder template.
    var mapping: [String: FieldSource]?
    /// What the import changed or left unchecked, in sentences (uploaded templates only).
    var notes: [String] = []
    /// When an uploaded template's archive or mapping last changed.
    var updatedAt: Date?
    /// Why a folder template does not load, while it does not.
    var problem: String?

    init(
        name: String, origin: TemplateLibrary.Origin, fields: [Field], extraFields: [String] = [], mapping: [String: FieldSource]? = nil,
        notes: [String] = [], updatedAt: Date? = nil, problem: String? = nil
    ) {
        self.name = name
        self.origin = origin
        self.fields = fields
        self.extraFields = extraFields
        self.mapping = mapping
        self.notes = notes
        self.updatedAt = updatedAt
        self.problem = problem
    }

    /// An uploaded template as built.
    init(_ uploaded: TemplateLibrary.Uploaded) {
        name = uploaded.name
        origin = .uploaded
        fields = uploaded.designer.fields.map { field in
            Field(key: field.key, label: field.label, value: field.sampleValue.map(Self.text), area: field.section.rawValue, isDate: field.isDate)
        }
        extraFields = uploaded.template.fields.map(\.name).sorted()
        mapping = Dictionary(uniqueKeysWithValues: uploaded.designer.fields.map { ($0.key, uploaded.mapping[$0.key] ?? .constant) })
        notes = uploaded.designer.notes
        updatedAt = uploaded.updatedAt
    }

    /// A folder template, or the reason it does not load.
    init(folder name: String, loading: Result<Template, any Error>) {
        self.name = name
        origin = .file
        switch loading {
        case .success(let template):
            fields = Self.fields(of: template.passJSON)
            extraFields = template.fields.map(\.name).sorted()
        case .failure(let error):
            fields = []
            extraFields = []
            problem = (error as? PassBundleError)?.message ?? "the template cannot be loaded"
        }
    }

    /// The field dictionaries of pass.json's `eventTicket`, group by group in Wallet's order.
    static func fields(of passJSON: JSONValue) -> [Field] {
        guard case .object(let root) = passJSON, case .object(let ticket)? = root["eventTicket"] else { return [] }
        var fields: [Field] = []
        for section in PassDesignerTemplate.Section.allCases {
            guard case .array(let items)? = ticket[section.jsonKey] else { continue }
            for item in items {
                // A placeholder that stands for a whole field (`{{cancellationField}}`) has no key.
                guard case .object(let members) = item, case .string(let key)? = members["key"] else { continue }
                let label: String? = if case .string(let text)? = members["label"] { text } else { nil }
                let isDate = members["dateStyle"] != nil || members["timeStyle"] != nil
                fields.append(Field(key: key, label: label, value: members["value"].map(text), area: section.rawValue, isDate: isDate))
            }
        }
        return fields
    }

    /// A JSON value as text: a string as it is, anything else as JSON.
    static func text(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return String(decoding: value.serialized, as: UTF8.self)
    }
}

/// An uploaded template saved (a new one, a replaced archive or a new mapping) and the re-push
/// jobs started for the events using it (none when no pass changes).
struct TemplateChange: Sendable, Equatable {
    var template: TemplateSummary
    /// Whether no template of the name was stored before.
    var created: Bool
    var jobs: [Job]
}

import Foundation
import HTTPServer
import PassBundle
import Storage

extension AdminController {
    /// The largest template upload: a zipped Pass Designer template (its images are most of it).
    static let templateBodyLimit = 10 << 20
    /// The largest mapping body: a source per field.
    static let mappingBodyLimit = 64 << 10

    /// `GET /admin/v1/templates`: the folder templates and the uploaded ones, each with its fields.
    func listTemplates(_ request: Request) throws -> Response {
        .json(TemplateListBody(templates: try organizer.templates().map(TemplateBody.init)), encoder: .api)
    }

    /// `GET /admin/v1/templates/{templateName}`: one template; 404 when there is none.
    func showTemplate(_ request: Request) throws -> Response {
        .json(TemplateBody(try organizer.template(named: request.parameters["templateName"])), encoder: .api)
    }

    /// `POST /admin/v1/templates?name=<name>`: the body is a zipped Pass Designer template; 201
    /// with the template, its fields and the mapping chosen (200 when it replaced the archive of
    /// the uploaded template of that name, with the re-push jobs started); 400 naming every
    /// problem of the name and the archive, nothing stored.
    func uploadTemplate(_ request: Request) throws -> Response {
        let change = try organizer.importTemplate(request.body, name: request.query["name"], requestID: request.requestID)
        return .json(TemplateChangeBody(change), status: change.created ? 201 : 200, encoder: .api)
    }

    /// `PUT /admin/v1/templates/{templateName}/mapping`: `{"mapping": {"<field key>": "<source>"}}`
    /// replaces which ticket data each field shows; 200 with the template and the re-push jobs.
    func updateTemplateMapping(_ request: Request) throws -> Response {
        var input = try AdminInput(request, allowed: ["mapping"])
        var mapping: [String: String] = [:]
        switch input.value("mapping") {
        case nil:
            input.problem("mapping", "is required")
        case .object(let members)?:
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                guard case .string(let source) = value else {
                    input.problem("mapping.\(key)", "must be a string")
                    continue
                }
                mapping[key] = source
            }
        default:
            input.problem("mapping", "must be an object")
        }
        let change = try organizer.updateMapping(
            template: request.parameters["templateName"], mapping, unreadable: input.unreadable, requestID: request.requestID
        )
        return .json(TemplateChangeBody(change), encoder: .api)
    }
}

/// A template as the admin API shows it.
struct TemplateBody: Encodable {
    struct Field: Encodable {
        var key: String
        var label: String?
        var value: String?
        var area: String
        var isDate: Bool
    }

    var name: String
    var origin: String
    var fields: [Field]
    var extraFields: [String]
    var mapping: [String: String]?
    var notes: [String]?
    var updatedAt: String?
    var problem: String?

    init(_ summary: TemplateSummary) {
        name = summary.name
        origin = summary.origin.rawValue
        fields = summary.fields.map { Field(key: $0.key, label: $0.label, value: $0.value, area: $0.area, isDate: $0.isDate) }
        extraFields = summary.extraFields
        mapping = summary.mapping?.mapValues(\.rawValue)
        notes = summary.origin == .uploaded ? summary.notes : nil
        updatedAt = summary.updatedAt.map { ISODate.format($0) }
        problem = summary.problem
    }
}

struct TemplateListBody: Encodable {
    var templates: [TemplateBody]
}

/// An uploaded template saved, and the re-push jobs started for the events using it.
struct TemplateChangeBody: Encodable {
    var template: TemplateBody
    var jobs: [EventUpdateBody.JobSummary]

    init(_ change: TemplateChange) {
        template = TemplateBody(change.template)
        jobs = change.jobs.map { .init(id: $0.id, state: $0.state.rawValue, total: $0.total) }
    }
}

import Foundation
import HTTPServer
import PassBundle
import Storage

extension DashboardController {
    /// The body limit of the template upload: the admin API's limit and room for the name, the
    /// CSRF token and the multipart framing.
    static let templateUploadBodyLimit = AdminController.templateBodyLimit + (64 << 10)

    static let templateTooLarge = "The upload is larger than \(AdminController.templateBodyLimit >> 20) MiB, the most a template takes."

    func registerTemplates(in router: inout Router) {
        router.get("/admin/templates", maxBodySize: Self.pageBodyLimit, query: ["notice"]) { request in
            read(request) { visitor in try templatesPage(visitor, form: FormState(), notice: Self.notice(request)) }
        }
        router.post("/admin/templates", maxBodySize: Self.templateUploadBodyLimit, preflight: templateUploadPreflight()) { request in
            write(request) { visitor, form in try uploadTemplate(visitor, form, request) }
        }
        router.get("/admin/templates/:templateName", maxBodySize: Self.pageBodyLimit, query: ["notice", "jobs"]) { request in
            read(request) { visitor in
                let template = try organizer.template(named: request.parameters["templateName"])
                return .html(TemplatePage(template: template, visitor: visitor, notice: Self.templateNotice(request)).render())
            }
        }
        router.post("/admin/templates/:templateName/mapping", preflight: formPreflight()) { request in
            write(request) { visitor, form in try updateMapping(visitor, form, request) }
        }
    }

    func templatesPage(_ visitor: DashboardSessions.Visitor, form: FormState, notice: DashboardLayout.Notice? = nil) throws -> Response {
        let page = TemplatesPage(templates: try organizer.templates(), visitor: visitor, form: form, notice: notice)
        return .html(page.render(), status: form.status)
    }

    /// `POST /admin/templates`: imports the zipped template under the name given and shows its
    /// mapping form; a refused upload shows the list again with every reason under its field.
    func uploadTemplate(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let name = AdminText.trimmed(form["name"] ?? "")
        do {
            let change = try organizer.importTemplate(form.file("file")?.bytes ?? [], name: name.isEmpty ? nil : name, requestID: request.requestID)
            let notice = change.created ? "template-uploaded" : "template-replaced"
            return Self.redirect(
                DashboardLayout.link(
                    "/admin/templates/" + TemplatesPage.pathComponent(change.template.name),
                    [("notice", notice), ("jobs", change.jobs.isEmpty ? nil : String(change.jobs.count))]
                )
            )
        } catch let refusal as OrganizerError {
            // The file is not carried back: the form shows the name typed and the reasons.
            guard let shown = FormState(values: ["name": name]).refused(refusal) else { throw refusal }
            return try templatesPage(visitor, form: shown)
        }
    }

    /// `POST /admin/templates/{name}/mapping`: the source chosen for each field (`mapping.<key>`).
    func updateMapping(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let name = request.parameters["templateName"]
        var mapping: [String: String] = [:]
        for field in form.fields where field.name.hasPrefix("mapping.") && mapping[String(field.name.dropFirst("mapping.".count))] == nil {
            mapping[String(field.name.dropFirst("mapping.".count))] = field.value
        }
        do {
            let change = try organizer.updateMapping(template: name, mapping, requestID: request.requestID)
            return Self.redirect(
                DashboardLayout.link(
                    "/admin/templates/" + TemplatesPage.pathComponent(change.template.name),
                    [("notice", "mapping-saved"), ("jobs", change.jobs.isEmpty ? nil : String(change.jobs.count))]
                )
            )
        } catch let refusal as OrganizerError {
            let template = try organizer.template(named: name)
            guard let shown = FormState(form, over: TemplatePage.values(of: template)).refused(refusal) else { throw refusal }
            return .html(TemplatePage(template: template, visitor: visitor, form: shown).render(), status: shown.status)
        }
    }

    /// The notice of a template page after an upload or a mapping change, with the number of
    /// events being updated.
    static func templateNotice(_ request: Request) -> DashboardLayout.Notice? {
        guard var notice = notice(request) else { return nil }
        if let jobs = request.query["jobs"].flatMap(Int.init), jobs > 0 {
            notice.text += " \(DashboardLayout.count(jobs)) \(jobs == 1 ? "event is" : "events are") being updated, with their phones."
        }
        return notice
    }

    /// The upload's preflight: an admin's session and a body within `templateUploadBodyLimit`,
    /// before the upload is read.
    func templateUploadPreflight() -> Preflight {
        { request in
            let visitor = try preflightVisitor(request, needsAdmin: true, allowingScanner: false)
            if let declared = request.headers["Content-Length"], let length = Int(declared.trimmingCharacters(in: .whitespaces)),
                length > Self.templateUploadBodyLimit
            {
                let tooLarge = HTTPError(status: 413, code: "payload_too_large", message: Self.templateTooLarge)
                throw Refusal(page: errorPage(tooLarge, visitor: visitor), cause: "upload too large")
            }
        }
    }
}

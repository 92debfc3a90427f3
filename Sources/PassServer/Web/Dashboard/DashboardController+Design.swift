import Foundation
import HTTPServer
import PassBundle
import PassImages
import Storage

/// The design page: `GET` shows the event's design with a preview of a sample ticket, `POST`
/// saves the form (images and fields, all or nothing) with the same operations as the admin API's
/// `PUT /admin/v1/events/{id}/design` (`Organizer+Design`). `GET /admin/images/{id}` serves the
/// preview's images to a signed-in visitor.
extension DashboardController {
    /// The body limit of the design form: a few full-size images (each at most
    /// `PassImageCheck.maximumFileBytes`) and the fields, encoded.
    static let designBodyLimit = 4 * PassImageCheck.maximumFileBytes + (256 << 10)

    static let designTooLarge = "The images are larger than \(designBodyLimit >> 20) MiB together, the most one save takes; upload them in turn."

    func registerDesign(in router: inout Router) {
        router.get("/admin/events/:eventId/design", maxBodySize: Self.pageBodyLimit, query: ["notice", "job"]) { request in
            read(request) { visitor in
                let event = try organizer.event(id: request.parameters["eventId"])
                let stored = try organizer.design(of: event)
                return try designPage(event, visitor, form: FormState(values: DesignForm.values(of: stored)), stored: stored, request: request)
            }
        }
        router.post("/admin/events/:eventId/design", maxBodySize: Self.designBodyLimit, preflight: designPreflight()) { request in
            write(request) { visitor, form in try saveDesign(visitor, form, request) }
        }
        router.get("/admin/images/:imageId", maxBodySize: Self.pageBodyLimit, query: ["scale"]) { request in
            guard try sessions.visitor(request) != nil else { throw HTTPError(status: 401, code: "unauthorized", message: "Sign in first.") }
            return try PassImageController.response(try PassImageController(store: store).image(request.parameters["imageId"]), scale: request.query["scale"], shared: false)
        }
    }

    /// The design form's preflight: an admin's session, a body within `designBodyLimit` (413
    /// page) and an event that exists (404 page), before the uploads are read.
    func designPreflight() -> Preflight {
        let form = formPreflight()
        return { request in
            try form(request)
            if let declared = request.headers["Content-Length"], let length = Int(declared.trimmingCharacters(in: .whitespaces)), length > Self.designBodyLimit {
                let visitor = try? sessions.visitor(request)
                throw Refusal(page: errorPage(HTTPError(status: 413, code: "payload_too_large", message: Self.designTooLarge), visitor: visitor), cause: "design upload too large")
            }
            do {
                _ = try organizer.event(id: request.parameters["eventId"])
            } catch {
                throw Refusal(page: errorPage(error, visitor: try? sessions.visitor(request)), cause: "\(error)")
            }
        }
    }

    /// The design page with `form`, its preview built from the design as stored.
    func designPage(_ event: Event, _ visitor: DashboardSessions.Visitor, form: FormState, stored: PassDesign, request: Request?) throws -> Response {
        var storedImages: [PassImageKind: String] = [:]
        for (name, id) in stored.images {
            if let kind = PassImageKind(rawValue: name) { storedImages[kind] = id }
        }
        let page = DesignPage(
            event: event, visitor: visitor, form: form, storedImages: storedImages, imageBytes: try organizer.imageByteCounts(of: stored),
            preview: designPreview(event, stored),
            job: request?.query["job"].flatMap { AdminIdentifiers.isPlausible($0, lengths: 1...64) ? $0 : nil },
            notice: request.flatMap(Self.notice)
        )
        return .html(page.render(), status: form.status)
    }

    /// The preview of a sample ticket of `event` with its stored design; nil when the pass cannot
    /// be built as stored (a template edited since, say).
    private func designPreview(_ event: Event, _ design: PassDesign) -> DesignPreview? {
        let passes = admin.passes
        guard let template = try? passes.templates.template(named: event.template), let sample = try? passes.samplePreview(event: event) else {
            return nil
        }
        var bare = event
        bare.design = nil
        guard let plain = try? passes.samplePreview(event: bare) else { return nil }
        var templateImages: [PassImageKind: String] = [:]
        for kind in PassImageKind.allCases {
            // The @2x file: sharp at the preview's size on most screens, a few kilobytes inline.
            if let png = template.file(at: "\(kind.rawValue)@2x.png") ?? template.file(at: "\(kind.rawValue).png") {
                templateImages[kind] = "data:image/png;base64," + Data(png).base64EncodedString()
            }
        }
        var images = templateImages
        for (name, id) in design.images {
            if let kind = PassImageKind(rawValue: name) { images[kind] = "/admin/images/\(id)?scale=2" }
        }
        return DesignPreview(
            definition: sample.pass, template: plain.pass, strings: sample.strings, event: event, design: design, images: images,
            templateImages: templateImages
        )
    }

    /// `POST /admin/events/{id}/design`: every upload checked first, then the fields; any refusal
    /// shows the form again with each issue under its field and changes nothing (no image stored,
    /// no design saved). A good save replaces the design, stores its new images with it and starts
    /// the re-push job; the page comes back with a notice and a link to the job.
    func saveDesign(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        let stored = try organizer.design(of: event)
        var reading = DesignForm.read(form, over: stored)
        var uploads: [PassImageRecord] = []
        for (kind, bytes) in reading.files {
            do {
                let image = try organizer.checkImage(bytes, kind: kind.rawValue, colors: reading.colors.rawValue)
                uploads.append(image)
                reading.design.images[kind.rawValue] = image.id
            } catch let refusal as OrganizerError {
                guard case .invalid(let issues) = refusal else { throw refusal }
                reading.issues += issues.map { DesignForm.formField($0, upload: kind) }
            }
        }
        let shown = FormState(form)
        func refused(_ issues: [OrganizerError.Issue]) throws -> Response {
            var state = shown
            state.issues = issues
            state.status = 400
            return try designPage(event, visitor, form: state, stored: stored, request: nil)
        }
        guard reading.issues.isEmpty else { return try refused(reading.issues) }
        do {
            let update = try organizer.updateDesign(event, reading.design, uploads: uploads, requestID: request.requestID)
            return Self.redirect("/admin/events/\(event.id)/design?notice=design-saved").with(job: update.job?.id)
        } catch let refusal as OrganizerError {
            guard case .invalid(let issues) = refusal else {
                guard let state = shown.refused(refusal) else { throw refusal }
                return try designPage(event, visitor, form: state, stored: stored, request: nil)
            }
            return try refused(issues.map { DesignForm.formField($0) })
        }
    }
}

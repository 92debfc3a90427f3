import Foundation
import HTTPServer
import PassBundle
import Storage

extension DashboardController {
    /// `GET /admin/`: the events, newest first, with search and upcoming / past.
    func eventsPage(_ request: Request, _ visitor: DashboardSessions.Visitor) throws -> Response {
        let when = ["upcoming", "past", "all"].contains(request.query["when"] ?? "") ? request.query["when"] ?? "upcoming" : "upcoming"
        let search = request.query["q"].map(AdminText.trimmed) ?? ""
        // An event counts as upcoming until a day after it started.
        let boundary = ISODate.format(admin.now().addingTimeInterval(-86_400))
        var object: [String: JSONValue] = ["limit": .string("25")]
        if !search.isEmpty { object["q"] = .string(search) }
        if when == "upcoming" { object["from"] = .string(boundary) }
        if when == "past" { object["to"] = .string(boundary) }
        if let cursor = request.query["cursor"] { object["cursor"] = .string(cursor) }
        var query = AdminInput(object: object, allowed: Set(object.keys))
        let page = try admin.eventList(&query)

        var rows = HTML.empty
        for event in page.events {
            let counts = event.counts
            rows += """
                <tr><td><a href="/admin/events/\(event.id)">\(event.name)</a>\(event.archived ? #" <span class="tag">archived</span>"# as HTML : "")</td>
                <td>\(event.startsAt.prefix(16).replacingOccurrences(of: "T", with: " ")) <span class="muted">\(event.timeZone)</span></td>
                <td>\(event.venue)</td>
                <td class="num">\(DashboardLayout.count(counts?.tickets ?? 0))</td>
                <td class="num">\(DashboardLayout.count(event.reach?.devicesUpToDate ?? 0)) / \(DashboardLayout.count(event.reach?.devices ?? 0))</td></tr>
                """
        }
        let table: HTML = page.events.isEmpty
            ? #"<p class="muted">No events match.</p>"#
            : """
                <div class="table-wrap"><table><caption class="sr-only">Events</caption>
                <thead><tr><th scope="col">Event</th><th scope="col">Starts</th><th scope="col">Venue</th><th scope="col">Tickets</th><th scope="col">Phones up to date</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        let next: HTML? = page.nextCursor.map {
            #"<p><a href="\#(url: DashboardLayout.link("/admin/", [("q", search.isEmpty ? nil : search), ("when", when), ("cursor", $0)])))">Next page</a></p>"#
        }
        let body: HTML = """
            <h1>Events</h1>
            \(visitor.canWrite ? #"<p><a class="button" href="/admin/events/new">New event</a></p>"# as HTML : "")
            <form method="get" action="/admin/" class="filters" role="search">
            \(DashboardLayout.field("q", label: "Search name or venue", value: search, type: "search"))
            \(DashboardLayout.select("when", label: "Show", options: [("upcoming", "Upcoming"), ("past", "Past"), ("all", "All")], selected: when))
            <button type="submit">Search</button>
            </form>
            \(table)
            \(next)
            """
        return .html(DashboardLayout.page(title: "Events", visitor: visitor, notice: Self.notice(request), body: body))
    }

    // MARK: Create and edit

    /// The event form's fields: the values to show (`form` after a refused submission).
    private func eventFields(_ values: [String: String], templates: [String]) -> HTML {
        let timeZone = values["timeZone"] ?? "UTC"
        return """
            \(DashboardLayout.field("name", label: "Name", value: values["name"], attributes: "required maxlength=200"))
            \(DashboardLayout.field("venue", label: "Venue", value: values["venue"], attributes: "required maxlength=200"))
            \(DashboardLayout.field("startsAt", label: "Starts (in the event's time zone)", value: values["startsAt"], type: "datetime-local", attributes: "required"))
            \(DashboardLayout.field("endsAt", label: "Ends (optional)", value: values["endsAt"], type: "datetime-local"))
            \(DashboardLayout.field("timeZone", label: "Time zone", value: timeZone, attributes: "required", hint: "An IANA name such as Asia/Tokyo or Europe/Berlin."))
            \(DashboardLayout.select("template", label: "Pass template", options: templates.map { ($0, $0) }, selected: values["template"] ?? "event-ticket"))
            \(DashboardLayout.select("language", label: "Email language", options: [("en", "English"), ("ja", "Japanese")], selected: values["language"] ?? "en"))
            """
    }

    /// The templates under the templates directory.
    private var templateNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: admin.passes.templates.root)) ?? []
        let found = names.filter { FileManager.default.fileExists(atPath: admin.passes.templates.root + "/" + $0 + "/pass.json") }.sorted()
        return found.isEmpty ? ["event-ticket"] : found
    }

    func newEventPage(_ visitor: DashboardSessions.Visitor, form: FormFields?, error: String?) throws -> Response {
        guard visitor.canWrite else { throw AdminAuthentication.forbidden(visitor.role, needs: .admin) }
        let values = Dictionary(form?.fields.map { ($0.name, $0.value) } ?? [], uniquingKeysWith: { first, _ in first })
        let body: HTML = """
            <h1>New event</h1>
            <form method="post" action="/admin/events" class="stack">\(DashboardLayout.csrf(visitor))
            \(eventFields(values, templates: templateNames))
            <p><button type="submit">Create event</button> <a href="/admin/">Cancel</a></p>
            </form>
            """
        let notice = error.map { DashboardLayout.Notice(text: $0, isError: true) }
        return .html(DashboardLayout.page(title: "New event", visitor: visitor, notice: notice, body: body), status: error == nil ? 200 : 400)
    }

    func createEvent(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        var input = AdminInput(object: eventObject(form, existing: nil), allowed: AdminController.eventFields)
        do {
            let event = try admin.createEvent(&input, requestID: request.requestID)
            return Self.redirect("/admin/events/\(event.id)?notice=created")
        } catch let error as HTTPError where error.status == 400 {
            return try newEventPage(visitor, form: form, error: error.message)
        }
    }

    func editEventPage(_ event: Event, _ visitor: DashboardSessions.Visitor, form: FormFields?, error: String?) throws -> Response {
        guard visitor.canWrite else { throw AdminAuthentication.forbidden(visitor.role, needs: .admin) }
        let details = try admin.eventDetails(event)
        var values = [
            "name": event.name, "venue": event.venue, "startsAt": DashboardLayout.localInput(event.startsAt, timeZone: event.timeZone),
            "endsAt": event.endsAt.map { DashboardLayout.localInput($0, timeZone: event.timeZone) } ?? "", "timeZone": event.timeZone,
            "template": event.template, "language": event.language,
        ]
        for field in form?.fields ?? [] { values[field.name] = field.value }
        let phones = details.reach?.devices ?? 0
        let reach = event.archivedAt != nil
            ? "This event is archived: saving changes its passes, but no phone is pushed."
            : "Saving a change of the name, venue, times or template updates every pass of this event: \(DashboardLayout.count(phones)) \(phones == 1 ? "phone" : "phones") will be updated."
        let body: HTML = """
            <h1>Edit \(event.name)</h1>
            <p class="notice" id="reach-preview" data-phones="\(phones)">\(reach)</p>
            <form method="post" action="/admin/events/\(event.id)/edit" class="stack">\(DashboardLayout.csrf(visitor))
            \(eventFields(values, templates: templateNames))
            <p><button type="submit">Save</button> <a href="/admin/events/\(event.id)">Cancel</a></p>
            </form>
            """
        let notice = error.map { DashboardLayout.Notice(text: $0, isError: true) }
        return .html(DashboardLayout.page(title: "Edit event", visitor: visitor, notice: notice, body: body), status: error == nil ? 200 : 400)
    }

    func updateEvent(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try admin.existingEvent(request)
        var input = AdminInput(object: eventObject(form, existing: event), allowed: AdminController.eventFields)
        do {
            let result = try admin.updateEvent(event, &input, requestID: request.requestID)
            return Self.redirect("/admin/events/\(event.id)?notice=saved")
                .with(job: result.job?.id)
        } catch let error as HTTPError where error.status == 400 {
            return try editEventPage(event, visitor, form: form, error: error.message)
        }
    }

    /// The admin API's event object from the form: for a new event every field filled in; for
    /// an edit only what differs from `existing` (so an unchanged form starts no re-push).
    private func eventObject(_ form: FormFields, existing: Event?) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        let timeZone = AdminText.trimmed(form["timeZone"] ?? "")
        let zone = timeZone.isEmpty ? (existing?.timeZone ?? "UTC") : timeZone
        for name in ["name", "venue", "template", "language"] {
            guard let value = form[name] else { continue }
            let current: String? = switch name {
            case "name": existing?.name
            case "venue": existing?.venue
            case "template": existing?.template
            default: existing?.language
            }
            if value != current && !(existing == nil && value.isEmpty) { object[name] = .string(value) }
        }
        if !timeZone.isEmpty && timeZone != existing?.timeZone { object["timeZone"] = .string(timeZone) }
        // Dates: local times in the event's zone; a changed zone rewrites them too (same wall time).
        for name in ["startsAt", "endsAt"] {
            let text = AdminText.trimmed(form[name] ?? "")
            let current = name == "startsAt" ? existing?.startsAt : existing?.endsAt
            let currentText = current.map { DashboardLayout.localInput($0, timeZone: existing?.timeZone ?? "UTC") } ?? ""
            if text.isEmpty {
                if existing != nil, current != nil, name == "endsAt" { object[name] = .null }
                continue
            }
            guard existing == nil || text != currentText || object["timeZone"] != nil else { continue }
            object[name] = .string(DashboardLayout.isoDate(local: text, timeZone: zone) ?? text)
        }
        if existing == nil && form["startsAt"]?.isEmpty == false && object["startsAt"] == nil { object["startsAt"] = .string("") }
        return object
    }

    func archive(_ form: FormFields, _ request: Request) throws -> Response {
        let event = try admin.existingEvent(request)
        let archived = form["archived"] != "false"
        _ = try admin.setArchived(archived, event, requestID: request.requestID)
        return Self.redirect("/admin/events/\(event.id)?notice=\(archived ? "archived" : "unarchived")")
    }
}

extension Response {
    /// The redirect with `job=` added to its location, when there is a job.
    func with(job: String?) -> Response {
        guard let job, let location = headers["Location"] else { return self }
        var copy = self
        copy.headers.replace(name: "Location", value: location + "&job=" + job)
        return copy
    }
}

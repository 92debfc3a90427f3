import Foundation
import HTTPServer
import PassBundle
import Storage

extension DashboardController {
    /// `GET /admin/events/{id}`: counts, the latest job's progress, the ticket table with search,
    /// status filter and paging, and (for admins) issuing, importing and emailing.
    func eventPage(_ request: Request, _ visitor: DashboardSessions.Visitor, notice: DashboardLayout.Notice? = nil, status: Int = 200) throws -> Response {
        let event = try admin.existingEvent(request)
        let details = try admin.eventDetails(event)
        let search = request.query["q"].map(AdminText.trimmed) ?? ""
        let statusFilter = ["active", "cancelled"].contains(request.query["status"] ?? "") ? request.query["status"] : nil
        var object: [String: JSONValue] = ["limit": .string("50")]
        if !search.isEmpty { object["q"] = .string(search) }
        if let statusFilter { object["status"] = .string(statusFilter) }
        if let cursor = request.query["cursor"] { object["cursor"] = .string(cursor) }
        var query = AdminInput(object: object, allowed: Set(object.keys))
        let page = try admin.ticketList(event, &query, downloadURLs: false)
        let id = event.id

        let actions: HTML? = !visitor.canWrite ? nil : """
            <div class="actions"><a class="button" href="/admin/events/\(id)/edit">Edit event</a>
            <form method="post" action="/admin/events/\(id)/archive" class="inline">\(DashboardLayout.csrf(visitor))
            <input type="hidden" name="archived" value="\(event.archivedAt == nil ? "true" : "false")">
            <button type="submit" class="secondary">\(event.archivedAt == nil ? "Archive" : "Unarchive")</button></form></div>
            """
        var body: HTML = """
            <p class="crumbs"><a href="/admin/">Events</a></p>
            <div class="page-head"><div>
            <h1>\(event.name)\(event.archivedAt != nil ? #" <span class="tag">archived</span>"# as HTML : "")</h1>
            <p class="subtitle">\(DashboardLayout.Icon.calendar) \(DashboardLayout.dateText(event.startsAt, timeZone: event.timeZone)) · \(event.venue)</p>
            </div>\(actions)</div>
            """
        body += counts(details)
        body += try jobPanel(event, request)
        body += ticketTable(event, page, search: search, status: statusFilter, visitor: visitor)
        body += #"<p><a href="/admin/events/\#(id)/tickets.csv" download>Export tickets as CSV</a></p>"#
        if visitor.canWrite {
            body += issueForm(event, visitor)
            body += importForm(event, visitor, csv: nil)
            body += emailSection(event, details, visitor)
        }
        return .html(
            DashboardLayout.page(title: event.name, visitor: visitor, notice: notice ?? Self.notice(request), body: body, scripts: ["dashboard.js"]),
            status: status
        )
    }

    private func counts(_ details: EventBody) -> HTML {
        let counts = details.counts
        let reach = details.reach
        let email = details.emailStatus
        func item(_ id: String, _ label: String, _ value: Int64) -> HTML {
            #"<div><dt>\#(label)</dt><dd id="\#(id)">\#(DashboardLayout.count(value))</dd></div>"#
        }
        let tickets = Int64(counts?.tickets ?? 0)
        let active = tickets - Int64(counts?.cancelled ?? 0)
        return """
            <h2 class="sr-only">Counts</h2>
            <dl class="stats">
            <div class="stat"><dt>\(DashboardLayout.Icon.ticket) Tickets</dt><dd id="count-tickets">\(DashboardLayout.count(tickets))</dd>
            <p class="of">\(DashboardLayout.count(active)) active</p></div>
            <div class="stat"><dt>\(DashboardLayout.Icon.phone) Phones up to date</dt><dd><span id="count-up-to-date">\(DashboardLayout.count(reach?.devicesUpToDate ?? 0))</span></dd>
            <p class="of">of \(DashboardLayout.count(reach?.devices ?? 0)) registrations</p></div>
            <div class="stat"><dt>\(DashboardLayout.Icon.check) Checked in</dt><dd id="count-checked-in">\(DashboardLayout.count(Int64(counts?.checkedIn ?? 0)))</dd>
            <p class="of">of \(DashboardLayout.count(active)) active tickets</p></div>
            </dl>
            <dl class="counts">
            \(item("count-cancelled", "Cancelled", Int64(counts?.cancelled ?? 0)))
            \(item("count-phones", "Phones", Int64(counts?.registeredDevices ?? 0)))
            \(item("count-pending", "Pushes pending", reach?.pushesPending ?? 0))
            \(item("count-failed", "Pushes failed", reach?.pushesFailed ?? 0))
            \(item("count-email-sent", "Emails sent", Int64(email?.sent ?? 0)))
            \(item("count-email-failed", "Emails failed", Int64(email?.failed ?? 0)))
            </dl>
            """
    }

    /// The job named by `?job=`, or the event's latest job while it runs: progress and reach,
    /// kept current by dashboard.js polling `/admin/jobs/{id}/progress`.
    private func jobPanel(_ event: Event, _ request: Request) throws -> HTML {
        var jobID = request.query["job"]
        if jobID == nil, let latest = try store.withSession(.read, { try $0.jobs(eventID: event.id, limit: 1) }).first, latest.state == .pending || latest.state == .running {
            jobID = latest.id
        }
        guard let jobID, let job = try? admin.jobDetails(id: jobID), job.eventId == event.id else { return "" }
        let reach = job.reach
        let kind = job.emails != nil ? "Email send" : "Updating phones"
        return """
            <section class="job" id="job" data-job="\(job.id)" aria-live="polite">
            <h2>\(kind)</h2>
            <p>State: <strong id="job-state">\(job.state)</strong> · passes <span id="job-done">\(job.done)</span> of <span id="job-total">\(job.total)</span></p>
            <progress id="job-progress" max="\(max(job.total, 1))" value="\(job.done)">\(job.done) of \(job.total)</progress>
            <p>Phones to reach: <span id="job-devices">\(reach?.devices ?? 0)</span> · up to date: <span id="job-up-to-date">\(reach?.devicesUpToDate ?? 0)</span>
             · pushes pending: <span id="job-pending">\(reach?.pushesPending ?? 0)</span> · delivered: <span id="job-delivered">\(reach?.pushesDelivered ?? 0)</span>
             · failed: <span id="job-failed">\(reach?.pushesFailed ?? 0)</span></p>
            <p class="muted"><a href="\(url: DashboardLayout.link("/admin/events/\(event.id)", [("job", job.id)]))">Refresh</a></p>
            </section>
            """
    }

    private func ticketTable(_ event: Event, _ page: TicketPage, search: String, status: String?, visitor: DashboardSessions.Visitor) -> HTML {
        let id = event.id
        var rows = HTML.empty
        for ticket in page.tickets {
            let serial = ticket.serialNumber
            var email: HTML = ticket.emailStatus.map { "\($0.state)" } ?? (ticket.attendeeEmail == nil ? #"<span class="muted">no address</span>"# : "not sent")
            if visitor.canWrite, admin.mail.isEnabled, ticket.attendeeEmail != nil, ticket.status == "active" {
                email += """
                     <form method="post" action="/admin/tickets/\(serial)/email" class="inline">\(DashboardLayout.csrf(visitor))\
                    <button type="submit" class="small" aria-label="\(ticket.emailStatus == nil ? "Send" : "Resend") email to \(ticket.attendeeName)">\(ticket.emailStatus == nil ? "Send" : "Resend")</button></form>
                    """
            }
            rows += """
                <tr><td><a href="/admin/tickets/\(serial)">\(ticket.attendeeName)</a></td>
                <td>\(ticket.seat ?? "")</td>
                <td class="\(ticket.status == "active" ? "status-ok" : "status-bad")">\(ticket.status)</td>
                <td>\(ticket.attendeeEmail ?? "")</td>
                <td>\(email)</td></tr>
                """
        }
        let table: HTML = page.tickets.isEmpty
            ? #"<p class="muted" id="no-tickets">No tickets match.</p>"#
            : """
                <div class="table-wrap"><table id="tickets"><caption class="sr-only">Tickets</caption>
                <thead><tr><th scope="col">Attendee</th><th scope="col">Seat</th><th scope="col">Status</th><th scope="col">Email address</th><th scope="col">Email</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        let next: HTML? = page.nextCursor.map {
            let target = DashboardLayout.link("/admin/events/\(event.id)", [("q", search.isEmpty ? nil : search), ("status", status), ("cursor", $0)])
            return #"<p><a href="\#(target)">Next page</a></p>"#
        }
        return """
            <h2>Tickets</h2>
            <form method="get" action="/admin/events/\(id)" class="filters" role="search">
            \(DashboardLayout.field("q", label: "Search name, email, serial or external id", value: search, type: "search"))
            \(DashboardLayout.select("status", label: "Status", options: [("", "Any"), ("active", "Active"), ("cancelled", "Cancelled")], selected: status ?? ""))
            <button type="submit">Search</button>
            </form>
            \(table)
            \(next)
            """
    }

    /// The inputs of a ticket's holder fields and the template's extra fields.
    func ticketInputs(_ event: Event, values: [String: String]) -> HTML {
        var html: HTML = """
            \(DashboardLayout.field("attendeeName", label: "Attendee name", value: values["attendeeName"], attributes: "required maxlength=200"))
            \(DashboardLayout.field("attendeeEmail", label: "Email address (optional)", value: values["attendeeEmail"], type: "email", attributes: "maxlength=254"))
            \(DashboardLayout.field("seat", label: "Seat (optional)", value: values["seat"], attributes: "maxlength=64"))
            """
        for field in admin.templateFields(of: event) {
            let name = "extra." + field.name
            let label = field.name + (field.required ? "" : " (optional)")
            switch field.kind {
            case .enumeration(let allowed):
                let options = (field.required ? [] : [("", "—")]) + allowed.map { ($0, $0) }
                html += DashboardLayout.select(name, label: label, options: options, selected: values[name])
            case .integer(let minimum, let maximum):
                html += DashboardLayout.field(name, label: label, value: values[name], type: "number", attributes: "min=\(minimum) max=\(maximum)")
            case .string(let maxLength, _):
                html += DashboardLayout.field(name, label: label, value: values[name], attributes: "maxlength=\(maxLength)")
            }
        }
        return html
    }

    private func issueForm(_ event: Event, _ visitor: DashboardSessions.Visitor) -> HTML {
        let notify: HTML = admin.mail.isEnabled
            ? #"<p><input type="checkbox" id="f-notify" name="notify" value="true"> <label for="f-notify" class="inline">Email the ticket to the attendee</label></p>"#
            : ""
        return """
            <details><summary><h2 class="inline">Issue one ticket</h2></summary>
            <form method="post" action="/admin/events/\(event.id)/tickets" class="stack">\(DashboardLayout.csrf(visitor))
            \(ticketInputs(event, values: [:]))
            \(DashboardLayout.field("externalId", label: "External id (optional)", attributes: "maxlength=128"))
            \(notify)
            <p><button type="submit">Issue ticket</button></p>
            </form></details>
            """
    }

    /// The admin API's ticket object from a form: holder fields and `extra.` fields; an empty
    /// optional field is left out (`clearing`: sent as null, which removes the value).
    func ticketObject(_ event: Event, _ form: FormFields, names: [String], clearing: Bool) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for name in names {
            guard let value = form[name] else { continue }
            if value.isEmpty {
                if clearing && name != "attendeeName" { object[name] = .null }
                continue
            }
            object[name] = .string(value)
        }
        var extra: [String: JSONValue] = [:]
        for field in admin.templateFields(of: event) {
            guard let value = form["extra." + field.name] else { continue }
            if value.isEmpty {
                if clearing && !field.required { extra[field.name] = .null }
                continue
            }
            if case .integer = field.kind, let number = Int64(value) {
                extra[field.name] = .number(Double(number))
            } else {
                extra[field.name] = .string(value)
            }
        }
        if !extra.isEmpty { object["extra"] = .object(extra) }
        return object
    }

    func issueTicket(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try admin.existingEvent(request)
        var object = ticketObject(event, form, names: ["attendeeName", "attendeeEmail", "seat", "externalId"], clearing: false)
        if form["notify"] == "true" { object["notify"] = .bool(true) }
        var input = AdminInput(object: object, allowed: AdminController.newTicketFields)
        do {
            let (ticket, _) = try admin.createTicket(event, &input, requestID: request.requestID)
            return Self.redirect("/admin/tickets/\(ticket.serialNumber)?notice=issued")
        } catch let error as HTTPError where error.status == 400 || error.status == 409 {
            return try eventPage(request, visitor, notice: .init(text: error.message, isError: true), status: error.status)
        }
    }

    func emailEvent(_ form: FormFields, _ request: Request) throws -> Response {
        let event = try admin.existingEvent(request)
        let job = try admin.mailing.email(event, resend: form["resend"] == "true", requestID: request.requestID)
        return Self.redirect("/admin/events/\(event.id)?notice=email-queued&job=\(job.id)")
    }

    private func emailSection(_ event: Event, _ details: EventBody, _ visitor: DashboardSessions.Visitor) -> HTML {
        guard admin.mail.isEnabled else {
            return #"<h2>Email</h2><p class="muted" id="email-off">Email is off: the server has no SMTP_URL, so tickets cannot be emailed from here.</p>"#
        }
        let id = event.id
        return """
            <h2>Email</h2>
            <form method="post" action="/admin/events/\(id)/email" class="inline">\(DashboardLayout.csrf(visitor))
            <button type="submit">Email every ticket not sent yet</button></form>
            <form method="post" action="/admin/events/\(id)/email" class="inline">\(DashboardLayout.csrf(visitor))
            <input type="hidden" name="resend" value="true"><button type="submit" class="secondary">Resend to everyone</button></form>
            """
    }
}

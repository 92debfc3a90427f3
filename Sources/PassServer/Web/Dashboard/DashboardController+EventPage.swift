import Foundation
import HTTPServer
import PassBundle
import Storage

extension DashboardController {
    /// `GET /admin/events/{id}`: counts, the latest job's progress, the ticket table with search,
    /// status filter and paging, and (for admins) issuing, importing and emailing.
    func eventPage(_ request: Request, _ visitor: DashboardSessions.Visitor, issuing form: FormState? = nil) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        let details = try organizer.details(of: event)
        let search = request.query["q"].map(AdminText.trimmed) ?? ""
        let statusFilter = ["active", "cancelled"].contains(request.query["status"] ?? "") ? request.query["status"] : nil
        var query = TicketQuery()
        query.limit = 50
        query.search = search.isEmpty ? nil : search
        query.status = statusFilter == "cancelled" ? .cancelled : statusFilter == "active" ? .active : nil
        if let cursor = request.query["cursor"] {
            query.cursor = cursor.utf8.count <= 18 && cursor.utf8.allSatisfy({ (0x30...0x39).contains($0) }) ? Int64(cursor) : nil
            if query.cursor == nil { query.unreadable.append(OrganizerError.Issue("cursor", "must be a cursor from a previous page")) }
        }
        let page = try organizer.tickets(of: event, query)
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
            body += issueForm(event, visitor, form: form ?? FormState())
            body += importForm(event, visitor, csv: nil)
            body += emailSection(event, details, visitor)
        }
        return .html(
            DashboardLayout.page(
                title: event.name, visitor: visitor, notice: form?.notice(shown: Self.ticketFormFields(event, organizer)) ?? Self.notice(request), body: body,
                scripts: ["dashboard.js"]
            ),
            status: form?.status ?? 200
        )
    }

    private func counts(_ details: EventDetails) -> HTML {
        let tally = details.tally
        func item(_ id: String, _ label: String, _ value: Int64) -> HTML {
            #"<div><dt>\#(label)</dt><dd id="\#(id)">\#(DashboardLayout.count(value))</dd></div>"#
        }
        let tickets = tally.tickets
        let active = details.activeTickets
        return """
            <h2 class="sr-only">Counts</h2>
            <dl class="stats">
            <div class="stat"><dt>\(DashboardLayout.Icon.ticket) Tickets</dt><dd id="count-tickets">\(DashboardLayout.count(tickets))</dd>
            <p class="of">\(DashboardLayout.count(active)) active</p></div>
            <div class="stat"><dt>\(DashboardLayout.Icon.phone) Phones up to date</dt><dd><span id="count-up-to-date">\(DashboardLayout.count(tally.devicesUpToDate))</span></dd>
            <p class="of">of \(DashboardLayout.count(tally.devices)) registrations</p></div>
            <div class="stat"><dt>\(DashboardLayout.Icon.check) Checked in</dt><dd id="count-checked-in">\(DashboardLayout.count(details.checkedIn))</dd>
            <p class="of">of \(DashboardLayout.count(active)) active tickets</p></div>
            </dl>
            <dl class="counts">
            \(item("count-cancelled", "Cancelled", tally.cancelled))
            \(item("count-phones", "Phones", tally.registeredDevices))
            \(item("count-pending", "Pushes pending", tally.pushesPending))
            \(item("count-failed", "Pushes failed", tally.pushesFailed))
            \(item("count-email-sent", "Emails sent", Int64(details.emails.sent)))
            \(item("count-email-failed", "Emails failed", Int64(details.emails.failed)))
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
        guard let jobID, let progress = try? organizer.job(id: jobID), progress.job.eventID == event.id else { return "" }
        let (job, reach) = (progress.job, progress.reach)
        let kind = job.isEmail ? "Email send" : "Updating phones"
        return """
            <section class="job" id="job" data-job="\(job.id)" aria-live="polite">
            <h2>\(kind)</h2>
            <p>State: <strong id="job-state">\(job.state.rawValue)</strong> · passes <span id="job-done">\(job.done)</span> of <span id="job-total">\(job.total)</span></p>
            <progress id="job-progress" max="\(max(job.total, 1))" value="\(job.done)">\(job.done) of \(job.total)</progress>
            <p>Phones to reach: <span id="job-devices">\(reach?.devices ?? 0)</span> · up to date: <span id="job-up-to-date">\(reach?.devicesUpToDate ?? 0)</span>
             · pushes pending: <span id="job-pending">\(reach?.pushesPending ?? 0)</span> · delivered: <span id="job-delivered">\(reach?.pushesDelivered ?? 0)</span>
             · failed: <span id="job-failed">\(reach?.pushesFailed ?? 0)</span></p>
            <p class="muted"><a href="\(url: DashboardLayout.link("/admin/events/\(event.id)", [("job", job.id)]))">Refresh</a></p>
            </section>
            """
    }

    private func ticketTable(_ event: Event, _ page: TicketList, search: String, status: String?, visitor: DashboardSessions.Visitor) -> HTML {
        let id = event.id
        var rows = HTML.empty
        for ticket in page.tickets {
            let pass = ticket.pass
            let serial = pass.serialNumber.rawValue
            var email: HTML = ticket.email.map { "\($0.state.rawValue)" } ?? (pass.attendeeEmail == nil ? #"<span class="muted">no address</span>"# : "not sent")
            if visitor.canWrite, admin.mail.isEnabled, pass.attendeeEmail != nil, ticket.isActive {
                email += """
                     <form method="post" action="/admin/tickets/\(serial)/email" class="inline">\(DashboardLayout.csrf(visitor))\
                    <button type="submit" class="small" aria-label="\(ticket.email == nil ? "Send" : "Resend") email to \(pass.attendeeName)">\(ticket.email == nil ? "Send" : "Resend")</button></form>
                    """
            }
            rows += """
                <tr><td><a href="/admin/tickets/\(serial)">\(pass.attendeeName)</a></td>
                <td>\(pass.seat ?? "")</td>
                <td class="\(ticket.isActive ? "status-ok" : "status-bad")">\(ticket.isActive ? "active" : "cancelled")</td>
                <td>\(pass.attendeeEmail ?? "")</td>
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

    /// The inputs of a ticket's holder fields and the template's extra fields, with the values
    /// and issues of `form`.
    func ticketInputs(_ event: Event, form: FormState) -> HTML {
        var html: HTML = """
            \(DashboardLayout.field(
                "attendeeName", label: "Attendee name", value: form.value("attendeeName"), attributes: "required maxlength=200",
                issues: form.issues("attendeeName")
            ))
            \(DashboardLayout.field(
                "attendeeEmail", label: "Email address (optional)", value: form.value("attendeeEmail"), type: "email", attributes: "maxlength=254",
                issues: form.issues("attendeeEmail")
            ))
            \(DashboardLayout.field("seat", label: "Seat (optional)", value: form.value("seat"), attributes: "maxlength=64", issues: form.issues("seat")))
            """
        for field in organizer.templateFields(of: event) {
            let name = "extra." + field.name
            let label = field.name + (field.required ? "" : " (optional)")
            switch field.kind {
            case .enumeration(let allowed):
                let options = (field.required ? [] : [("", "—")]) + allowed.map { ($0, $0) }
                html += DashboardLayout.select(name, label: label, options: options, selected: form.value(name), issues: form.issues(name))
            case .integer(let minimum, let maximum):
                html += DashboardLayout.field(
                    name, label: label, value: form.value(name), type: "number", attributes: "min=\(minimum) max=\(maximum)", issues: form.issues(name)
                )
            case .string(let maxLength, _):
                html += DashboardLayout.field(name, label: label, value: form.value(name), attributes: "maxlength=\(maxLength)", issues: form.issues(name))
            }
        }
        return html
    }

    /// The names of the fields the ticket forms show (their issues are shown next to them).
    static func ticketFormFields(_ event: Event, _ organizer: Organizer) -> [String] {
        ["attendeeName", "attendeeEmail", "seat", "externalId"] + organizer.templateFields(of: event).map { "extra." + $0.name }
    }

    private func issueForm(_ event: Event, _ visitor: DashboardSessions.Visitor, form: FormState) -> HTML {
        let notify: HTML = admin.mail.isEnabled
            ? #"<p><input type="checkbox" id="f-notify" name="notify" value="true"> <label for="f-notify" class="inline">Email the ticket to the attendee</label></p>"#
            : ""
        return """
            <details\(form.status == 200 ? "" : " open")><summary><h2 class="inline">Issue one ticket</h2></summary>
            <form method="post" action="/admin/events/\(event.id)/tickets" class="stack">\(DashboardLayout.csrf(visitor))
            \(ticketInputs(event, form: form))
            \(DashboardLayout.field(
                "externalId", label: "External id (optional)", value: form.value("externalId"), attributes: "maxlength=128", issues: form.issues("externalId")
            ))
            \(notify)
            <p><button type="submit">Issue ticket</button></p>
            </form></details>
            """
    }

    /// A value of one of the template's extra fields from a form: a number for an integer field
    /// when it is one.
    static func extraInput(_ value: String, for field: TemplateField) -> ExtraInput {
        if case .integer = field.kind, let number = Int64(value) { return .number(Double(number)) }
        return .text(value)
    }

    /// A new ticket from the form: the holder fields and `extra.` fields filled in.
    func ticketDraft(_ event: Event, _ form: FormFields) -> TicketDraft {
        var draft = TicketDraft()
        draft.attendeeName = form.nonEmpty("attendeeName")
        draft.attendeeEmail = form.nonEmpty("attendeeEmail")
        draft.seat = form.nonEmpty("seat")
        draft.externalID = form.nonEmpty("externalId")
        var extra: [String: ExtraInput] = [:]
        for field in organizer.templateFields(of: event) {
            if let value = form.nonEmpty("extra." + field.name) { extra[field.name] = Self.extraInput(value, for: field) }
        }
        draft.extra = extra.isEmpty ? nil : extra
        return draft
    }

    func issueTicket(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        do {
            let issued = try organizer.issueTicket(ticketDraft(event, form), of: event, notify: form["notify"] == "true", requestID: request.requestID)
            return Self.redirect("/admin/tickets/\(issued.ticket.pass.serialNumber)?notice=issued")
        } catch let refusal as OrganizerError {
            guard let shown = FormState(form).refused(refusal) else { throw refusal }
            return try eventPage(request, visitor, issuing: shown)
        }
    }

    func emailEvent(_ form: FormFields, _ request: Request) throws -> Response {
        let event = try admin.existingEvent(request)
        let job = try admin.mailing.email(event, resend: form["resend"] == "true", requestID: request.requestID)
        return Self.redirect("/admin/events/\(event.id)?notice=email-queued&job=\(job.id)")
    }

    private func emailSection(_ event: Event, _ details: EventDetails, _ visitor: DashboardSessions.Visitor) -> HTML {
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

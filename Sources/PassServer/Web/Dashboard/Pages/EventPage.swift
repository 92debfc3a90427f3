import Foundation
import PassBundle
import Storage

/// The event page (`GET /admin/events/{id}`) as a function of what it shows: the headline
/// figures (tickets, phones up to date, checked in) and the other counts, the running job, the
/// ticket table with its search, filter and next page, and for admins the forms to issue, import
/// and email. It reads nothing: the controller gathers the values, the page only renders them.
struct EventPage {
    var details: EventDetails
    var tickets: TicketList
    /// The ticket table's search and status filter (`active`, `cancelled`, or nil for any).
    var search = ""
    var status: String?
    /// The ticket table's check-in filter (`true`, `false`, or nil for any).
    var checkedIn: String?
    /// The job the page follows (the event's latest while it runs, or the one `?job=` names).
    var job: JobProgress?
    var visitor: DashboardSessions.Visitor
    /// The template's extra fields, which the issue form asks for.
    var templateFields: [TemplateField] = []
    /// Whether the server can send email (an SMTP URL is configured).
    var mailEnabled = false
    /// The issue form as submitted and refused, or empty.
    var issuing = FormState()
    var notice: DashboardLayout.Notice?
    /// The announcements and scheduled changes, with their forms.
    var scheduling: SchedulingSections?

    var event: Event { details.event }

    func render() -> HTML {
        let id = event.id
        let actions: HTML = !visitor.canWrite
            ? """
                <div class="actions"><a class="button secondary" href="/admin/events/\(id)/attendance" id="attendance-link">Attendance</a>
                <a class="button secondary" href="/admin/events/\(id)/design" id="design-link">Pass design</a>
                <a class="button secondary" href="/admin/events/\(id)/door-staff" id="door-staff-link">Door staff</a></div>
                """
            : """
            <div class="actions"><a class="button" href="/admin/events/\(id)/edit">Edit event</a>
            <a class="button secondary" href="/admin/events/\(id)/attendance" id="attendance-link">Attendance</a>
            <a class="button secondary" href="/admin/events/\(id)/design" id="design-link">Pass design</a>
            <a class="button secondary" href="/admin/events/\(id)/door-staff" id="door-staff-link">Door staff</a>
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
        body += counts
        body += jobPanel
        body += scheduling?.render ?? ""
        body += ticketTable
        body += #"<p><a href="/admin/events/\#(id)/tickets.csv" download>Export tickets as CSV</a></p>"#
        if visitor.canWrite {
            body += issueForm
            body += ImportPage.form(event, visitor, templateFields: templateFields, csv: nil)
            body += emailSection
            body += dangerSection
        }
        return DashboardLayout.page(
            title: event.name, visitor: visitor,
            notice: issuing.notice(shown: TicketForm.shownFields(templateFields))
                ?? scheduling?.announcing.notice(shown: SchedulingSections.announcingFields) ?? notice,
            body: body,
            scripts: ["dashboard.js"]
        )
    }

    private var counts: HTML {
        let tally = details.tally
        func item(_ id: String, _ label: String, _ value: Int64) -> HTML {
            #"<div><dt>\#(label)</dt><dd id="\#(id)">\#(DashboardLayout.count(value))</dd></div>"#
        }
        let active = details.activeTickets
        let googleWallet: HTML = details.googleWalletSaved.map { item("count-google-wallet", "Saved in Google Wallet", $0) } ?? ""
        return """
            <h2 class="sr-only">Counts</h2>
            <dl class="stats">
            <div class="stat"><dt>\(DashboardLayout.Icon.ticket) Tickets</dt><dd id="count-tickets">\(DashboardLayout.count(tally.tickets))</dd>
            <p class="of">\(DashboardLayout.count(active)) active</p></div>
            <div class="stat"><dt>\(DashboardLayout.Icon.phone) Phones up to date</dt><dd><span id="count-up-to-date">\(DashboardLayout.count(tally.devicesUpToDate))</span></dd>
            <p class="of">of \(DashboardLayout.count(tally.devices)) registrations</p></div>
            <div class="stat"><dt>\(DashboardLayout.Icon.check) Checked in</dt><dd id="count-checked-in">\(DashboardLayout.count(details.checkedIn))</dd>
            <p class="of">of \(DashboardLayout.count(active)) active tickets</p></div>
            </dl>
            <dl class="counts">
            \(item("count-cancelled", "Cancelled", tally.cancelled))
            \(item("count-phones", "Phones", tally.registeredDevices))
            \(googleWallet)
            \(item("count-pending", "Pushes pending", tally.pushesPending))
            \(item("count-failed", "Pushes failed", tally.pushesFailed))
            \(item("count-email-sent", "Emails sent", Int64(details.emails.sent)))
            \(item("count-email-failed", "Emails failed", Int64(details.emails.failed)))
            </dl>
            """
    }

    /// The job's progress and reach, kept current by dashboard.js polling `/admin/jobs/{id}/progress`.
    private var jobPanel: HTML {
        guard let job = job?.job else { return "" }
        let reach = self.job?.reach
        let kind = job.isEmail ? "Email send" : "Updating phones"
        return """
            <section class="job" id="job" data-job="\(job.id)" aria-live="polite">
            <h2>\(kind)</h2>
            <p>State: <strong id="job-state">\(job.state.rawValue)</strong> · passes <span id="job-done">\(job.done)</span> of <span id="job-total">\(job.total)</span></p>
            <progress id="job-progress" max="\(max(job.total, 1))" value="\(job.done)">\(job.done) of \(job.total)</progress>
            <p>Phones to reach: <span id="job-devices">\(reach?.devices ?? 0)</span> · up to date: <span id="job-up-to-date">\(reach?.devicesUpToDate ?? 0)</span>
             · pushes pending: <span id="job-pending">\(reach?.pushesPending ?? 0)</span> · delivered: <span id="job-delivered">\(reach?.pushesDelivered ?? 0)</span>
             · failed: <span id="job-failed">\(reach?.pushesFailed ?? 0)</span></p>
            \(job.isEmail ? HTML.empty : reachPlot(reach))
            <p class="muted"><a href="\(url: DashboardLayout.link("/admin/events/\(event.id)", [("job", job.id)]))">Refresh</a></p>
            </section>
            """
    }

    /// The share of the phones to reach that hold the new pass, against time: the number as
    /// rendered, and a line dashboard.js extends at each poll (without the script, the number).
    private func reachPlot(_ reach: Reach?) -> HTML {
        let devices = reach?.devices ?? 0
        let current = reach?.devicesUpToDate ?? 0
        let share = devices > 0 ? "\(Int((Double(current) / Double(devices) * 100).rounded(.down)))%" : "—"
        return """
            <figure class="reach-plot" id="job-reach">
            <svg id="job-reach-plot" viewBox="0 0 300 90" role="img" aria-labelledby="job-reach-title" data-samples="0" xmlns="http://www.w3.org/2000/svg">
            <title id="job-reach-title">Share of the phones to reach that hold the new pass, over time</title>
            <line class="grid" x1="34" y1="10" x2="296" y2="10"/><line class="axis" x1="34" y1="80" x2="296" y2="80"/>
            <text class="tick" x="30" y="14" text-anchor="end">100%</text><text class="tick" x="30" y="84" text-anchor="end">0%</text>
            <polyline id="job-reach-line" class="line" points="" fill="none"/>
            </svg>
            <figcaption><strong id="job-share">\(share)</strong> of the phones to reach hold the new pass \
            (<span id="job-share-count">\(current)</span> of \(devices)).</figcaption>
            </figure>
            """
    }

    private var ticketTable: HTML {
        let id = event.id
        var rows = HTML.empty
        for ticket in tickets.tickets {
            let pass = ticket.pass
            let serial = pass.serialNumber.rawValue
            var email: HTML = ticket.email.map { "\($0.state.rawValue)" } ?? (pass.attendeeEmail == nil ? #"<span class="muted">no address</span>"# : "not sent")
            if visitor.canWrite, mailEnabled, pass.attendeeEmail != nil, ticket.isActive {
                email += """
                     <form method="post" action="/admin/tickets/\(serial)/email" class="inline">\(DashboardLayout.csrf(visitor))\
                    <button type="submit" class="small" aria-label="\(ticket.email == nil ? "Send" : "Resend") email to \(pass.attendeeName)">\(ticket.email == nil ? "Send" : "Resend")</button></form>
                    """
            }
            rows += """
                <tr><td><a href="/admin/tickets/\(serial)">\(PassService.shownName(pass))</a></td>
                <td>\(pass.seat ?? "")</td>
                <td class="\(ticket.isActive ? "status-ok" : "status-bad")">\(ticket.isActive ? "active" : "cancelled")</td>
                <td>\(pass.attendeeEmail ?? "")</td>
                <td>\(email)</td>
                <td class="checked-in">\(checkInCell(ticket))</td></tr>
                """
        }
        let table: HTML = tickets.tickets.isEmpty
            ? #"<p class="muted" id="no-tickets">No tickets match.</p>"#
            : """
                <div class="table-wrap"><table id="tickets"><caption class="sr-only">Tickets</caption>
                <thead><tr><th scope="col">Attendee</th><th scope="col">Seat</th><th scope="col">Status</th><th scope="col">Email address</th><th scope="col">Email</th><th scope="col">Checked in</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        let next: HTML? = tickets.nextCursor.map {
            let target = DashboardLayout.link(
                "/admin/events/\(id)", [("q", search.isEmpty ? nil : search), ("status", status), ("checkedIn", checkedIn), ("cursor", $0)]
            )
            return #"<p><a href="\#(url: target)">Next page</a></p>"#
        }
        return """
            <h2>Tickets</h2>
            <form method="get" action="/admin/events/\(id)" class="filters" role="search">
            \(DashboardLayout.field("q", label: "Search name, email, serial or external id", value: search, type: "search"))
            \(DashboardLayout.select("status", label: "Status", options: [("", "Any"), ("active", "Active"), ("cancelled", "Cancelled")], selected: status ?? ""))
            \(DashboardLayout.select(
                "checkedIn", label: "Check-in", options: [("", "Any"), ("true", "Checked in"), ("false", "Not checked in")], selected: checkedIn ?? ""
            ))
            <button type="submit">Search</button>
            </form>
            \(table)
            \(next)
            """
    }

    /// When and at which gate the ticket was checked in, in the event's time zone; a dash before.
    private func checkInCell(_ ticket: Ticket) -> HTML {
        guard let at = ticket.pass.checkedInAt else { return #"<span class="muted">—</span>"# }
        let time = DashboardLayout.localInput(at, timeZone: event.timeZone).replacingOccurrences(of: "T", with: " ")
        let gate: HTML = ticket.checkIn?.gate.map { #" · gate <span class="gate">\#($0)</span>"# } ?? ""
        return #"<time datetime="\#(ISODate.format(at))">\#(time)</time>\#(gate)"#
    }

    private var issueForm: HTML {
        let notify: HTML = mailEnabled
            ? #"<p><input type="checkbox" id="f-notify" name="notify" value="true"> <label for="f-notify" class="inline">Email the ticket to the attendee</label></p>"#
            : ""
        return """
            <details\(issuing.status == 200 ? "" : " open")><summary><h2 class="inline">Issue one ticket</h2></summary>
            <form method="post" action="/admin/events/\(event.id)/tickets" class="stack">\(DashboardLayout.csrf(visitor))
            \(TicketForm.inputs(templateFields, form: issuing))
            \(DashboardLayout.field(
                "externalId", label: "External id (optional)", value: issuing.value("externalId"), attributes: "maxlength=128",
                issues: issuing.issues("externalId")
            ))
            \(notify)
            <p><button type="submit">Issue ticket</button></p>
            </form></details>
            """
    }

    /// Erasing the attendees' data and deleting the event, each confirmed by typing the event's name.
    private var dangerSection: HTML {
        let id = event.id
        let erased: HTML = event.erasedAt.map {
            #"<p class="muted" id="erased">Attendee data erased on \#(DashboardLayout.dateText($0, timeZone: event.timeZone)).</p>"#
        } ?? ""
        return """
            <section class="danger" aria-labelledby="danger-heading">
            <h2 id="danger-heading">Erase or delete</h2>
            \(erased)<form method="post" action="/admin/events/\(id)/erase" class="stack" id="erase-form">\(DashboardLayout.csrf(visitor))
            <p>Erasing removes every attendee's name, email, seat, external id and extra fields; the counts and check-in times stay, and passes show "Attendee data erased".</p>
            \(DashboardLayout.field("confirmErase", label: "Type the event's name to confirm", attributes: "required autocomplete=off"))
            <p><button type="submit" class="danger">Erase attendee data</button></p></form>
            <form method="post" action="/admin/events/\(id)/delete" class="stack" id="delete-form">\(DashboardLayout.csrf(visitor))
            <p>Deleting voids every ticket and updates the phones holding one; the event and its tickets are then removed for good.</p>
            \(DashboardLayout.field("confirmDelete", label: "Type the event's name to confirm", attributes: "required autocomplete=off"))
            <p><button type="submit" class="danger">Delete event</button></p></form>
            </section>
            """
    }

    private var emailSection: HTML {
        guard mailEnabled else {
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

/// The holder fields of a ticket's forms (issue and edit) and the template's extra fields.
enum TicketForm {
    /// The inputs with the values and issues of `form`.
    static func inputs(_ templateFields: [TemplateField], form: FormState) -> HTML {
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
        for field in templateFields {
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
    static func shownFields(_ templateFields: [TemplateField]) -> [String] {
        ["attendeeName", "attendeeEmail", "seat", "externalId"] + templateFields.map { "extra." + $0.name }
    }
}

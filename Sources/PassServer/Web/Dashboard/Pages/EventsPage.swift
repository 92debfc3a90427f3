import Foundation
import Storage

/// The events list (`GET /admin/`): a page of events with their ticket and phone counts, the
/// search and the upcoming / past / all choice, and the next page's link.
struct EventsPage {
    var list: EventList
    var search = ""
    /// `upcoming`, `past` or `all`.
    var when = "upcoming"
    var visitor: DashboardSessions.Visitor
    var notice: DashboardLayout.Notice?

    func render() -> HTML {
        var rows = HTML.empty
        for details in list.events {
            let (event, tally) = (details.event, details.tally)
            rows += """
                <tr><td><a href="/admin/events/\(event.id)">\(event.name)</a>\(event.archivedAt != nil ? #" <span class="tag">archived</span>"# as HTML : "")</td>
                <td>\(DashboardLayout.localInput(event.startsAt, timeZone: event.timeZone).replacingOccurrences(of: "T", with: " ")) <span class="muted">(\(event.timeZone))</span></td>
                <td>\(event.venue)</td>
                <td class="num">\(DashboardLayout.count(tally.tickets))</td>
                <td class="num">\(DashboardLayout.count(tally.devicesUpToDate)) / \(DashboardLayout.count(tally.devices))</td></tr>
                """
        }
        let table: HTML = list.events.isEmpty
            ? #"<p class="muted">No events match.</p>"#
            : """
                <div class="table-wrap"><table><caption class="sr-only">Events</caption>
                <thead><tr><th scope="col">Event</th><th scope="col">Starts</th><th scope="col">Venue</th><th scope="col">Tickets</th><th scope="col">Phones up to date</th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        let next: HTML? = list.nextCursor.map {
            #"<p><a href="\#(url: DashboardLayout.link("/admin/", [("q", search.isEmpty ? nil : search), ("when", when), ("cursor", $0)])))">Next page</a></p>"#
        }
        let body: HTML = """
            <h1>Events</h1>
            <p>\(visitor.canWrite ? #"<a class="button" href="/admin/events/new">New event</a> "# as HTML : "")<a href="/admin/templates" id="templates-link">Templates</a></p>
            <form method="get" action="/admin/" class="filters" role="search">
            \(DashboardLayout.field("q", label: "Search name or venue", value: search, type: "search"))
            \(DashboardLayout.select("when", label: "Show", options: [("upcoming", "Upcoming"), ("past", "Past"), ("all", "All")], selected: when))
            <button type="submit">Search</button>
            </form>
            \(table)
            \(next)
            """
        return DashboardLayout.page(title: "Events", visitor: visitor, notice: notice, body: body)
    }
}

/// The new-event and edit-event form: the event's fields with their values and each refused
/// field's issues; editing says how many phones saving will update.
struct EventFormPage {
    /// The event being edited, with its registrations; nil for a new event.
    var editing: (event: Event, phones: Int64)?
    var form: FormState
    var templateNames: [String]
    var visitor: DashboardSessions.Visitor
    /// The new event starts in the past: the form asks whether to create it anyway.
    var confirmingPastStart = false
    /// The scheduled change being edited (the form then saves it, not the event).
    var scheduled: ScheduledChange?

    static let pastStartQuestion = "This event started in the past — create anyway?"

    func render() -> HTML {
        let body: HTML
        if let (event, phones) = editing, let scheduled {
            body = """
                <h1>Scheduled change of \(event.name)</h1>
                <p class="notice" id="scheduled-notice">This change applies at the time below, to the event as it is then;                 the fields hold the event's values with the change's own.</p>
                <form method="post" action="/admin/events/\(event.id)/scheduled/\(scheduled.id)" class="stack">\(DashboardLayout.csrf(visitor))
                \(applyAtField(event, required: true))
                \(fields)
                <p class="actions"><button type="submit">Save scheduled change</button> <a href="/admin/events/\(event.id)">Back</a></p>
                </form>
                <form method="post" action="/admin/events/\(event.id)/scheduled/\(scheduled.id)/cancel" class="inline">\(DashboardLayout.csrf(visitor))
                <button type="submit" class="secondary">Cancel this scheduled change</button></form>
                <p class="muted" data-phones="\(phones)">When it applies, every pass of this event is updated.</p>
                """
        } else if let (event, phones) = editing {
            let reach = event.archivedAt != nil
                ? "This event is archived: saving changes its passes, but no phone is pushed."
                : "Saving a change of the name, venue, times or template updates every pass of this event: \(DashboardLayout.count(phones)) \(phones == 1 ? "phone" : "phones") will be updated."
            body = """
                <h1>Edit \(event.name)</h1>
                <p class="notice" id="reach-preview" data-phones="\(phones)">\(reach)</p>
                <form method="post" action="/admin/events/\(event.id)/edit" class="stack">\(DashboardLayout.csrf(visitor))
                \(fields)
                \(applyAtField(event, required: false))
                <p class="actions"><button type="submit" name="when" value="now">Save</button>
                <button type="submit" name="when" value="schedule" class="secondary">Schedule</button> <a href="/admin/events/\(event.id)">Cancel</a></p>
                </form>
                """
        } else {
            body = """
                <h1>New event</h1>
                <form method="post" action="/admin/events" class="stack">\(DashboardLayout.csrf(visitor))
                \(fields)\(confirmingPastStart ? #"<input type="hidden" name="confirmPastStart" value="true">"# as HTML : "")
                <p><button type="submit" id="create-event">\(confirmingPastStart ? "Create anyway" : "Create event")</button> <a href="/admin/">Cancel</a></p>
                </form>
                """
        }
        return DashboardLayout.page(
            title: editing == nil ? "New event" : scheduled == nil ? "Edit event" : "Scheduled change", visitor: visitor,
            notice: form.notice(shown: EventDraft.fields + ["applyAt"]), body: body
        )
    }

    /// When a scheduled change applies, in the event's zone.
    private func applyAtField(_ event: Event, required: Bool) -> HTML {
        DashboardLayout.field(
            "applyAt", label: required ? "Applies at (in \(event.timeZone))" : "Apply at (for Schedule, in \(event.timeZone))", value: form.value("applyAt"),
            type: "datetime-local", attributes: required ? "required" : "",
            hint: required ? nil : "Schedule saves the change to apply then; Save applies it at once.", issues: form.issues("applyAt")
        )
    }

    /// The event form's fields with the values of `form` and each refused field's issues.
    private var fields: HTML {
        """
        \(DashboardLayout.field("name", label: "Name", value: form.value("name"), attributes: "required maxlength=200", issues: form.issues("name")))
        \(DashboardLayout.field("venue", label: "Venue", value: form.value("venue"), attributes: "required maxlength=200", issues: form.issues("venue")))
        \(DashboardLayout.field(
            "startsAt", label: "Starts (in the event's time zone)", value: form.value("startsAt"), type: "datetime-local", attributes: "required",
            issues: form.issues("startsAt")
        ))
        \(DashboardLayout.field("endsAt", label: "Ends (optional)", value: form.value("endsAt"), type: "datetime-local", issues: form.issues("endsAt")))
        \(DashboardLayout.field(
            "timeZone", label: "Time zone", value: form.value("timeZone") ?? "UTC", attributes: "required",
            hint: "An IANA name such as Asia/Tokyo or Europe/Berlin.", issues: form.issues("timeZone")
        ))
        \(DashboardLayout.select(
            "template", label: "Pass template", options: templateNames.map { ($0, $0) }, selected: form.value("template") ?? "event-ticket",
            issues: form.issues("template")
        ))
        \(DashboardLayout.select(
            "language", label: "Email language", options: [("en", "English"), ("ja", "Japanese")], selected: form.value("language") ?? "en",
            issues: form.issues("language")
        ))
        """
    }
}

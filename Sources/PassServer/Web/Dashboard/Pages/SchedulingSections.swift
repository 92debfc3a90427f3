import Foundation
import Storage

/// The event page's announcements and scheduled changes: each list with its states (times in the
/// event's zone) and, for admins, the forms that write, send, schedule and withdraw an
/// announcement, and the links that edit or cancel a scheduled change.
struct SchedulingSections {
    var event: Event
    var announcements: [AnnouncementItem]
    var changes: [ScheduledChange]
    var visitor: DashboardSessions.Visitor
    /// The announcement form as submitted and refused, or empty.
    var announcing = FormState()

    static let announcingFields = ["message", "notify", "sendAt"]

    var render: HTML { announcementSection + changesSection }

    /// `date` in the event's zone as text (`2027-03-01 18:00`).
    private func text(_ date: Date) -> String {
        DashboardLayout.localInput(date, timeZone: event.timeZone).replacingOccurrences(of: "T", with: " ")
    }

    private func time(_ date: Date) -> HTML {
        #"<time datetime="\#(ISODate.format(date))">\#(text(date))</time>"#
    }

    // MARK: Announcements

    private var announcementSection: HTML {
        var rows = HTML.empty
        for item in announcements {
            let state: (String, String) = switch item.state {
            case .sent: (item.isCurrent ? "on the passes" : "replaced", "status-ok")
            case .scheduled: ("scheduled", "status-warn")
            case .withdrawn: ("withdrawn", "")
            case .failed: ("failed", "status-bad")
            case .cancelled: ("cancelled", "")
            }
            // Only a sent one is on passes; a withdrawn one's reach is history.
            let reach: HTML = item.reach.flatMap { item.state == .sent ? $0 : nil }.map {
                #"<span class="reach">\#(DashboardLayout.count($0.devicesUpToDate)) of \#(DashboardLayout.count($0.devices))</span>"#
            } ?? #"<span class="muted">—</span>"#
            var withdraw: HTML = ""
            if visitor.canWrite && (item.state == .sent || item.state == .scheduled) {
                let label = item.state == .scheduled ? "Cancel" : "Withdraw"
                withdraw = """
                    <form method="post" action="/admin/events/\(event.id)/announcements/\(item.id)/withdraw" class="inline">\(DashboardLayout.csrf(visitor))\
                    <button type="submit" class="small secondary" aria-label="\(label) the announcement of \(text(item.sendAt))">\(label)</button></form>
                    """
            }
            let reason: HTML = item.reason.map { #"<br><small class="status-bad">\#($0)</small>"# } ?? ""
            rows += """
                <tr data-announcement="\(item.id)"><td class="message">\(item.message)</td>
                <td class="\(state.1)">\(state.0)\(reason)</td>
                <td>\(time(item.sendAt))</td>
                <td>\(item.notify ? "yes" : "no")</td>
                <td class="num">\(reach)</td>
                <td>\(withdraw)</td></tr>
                """
        }
        let table: HTML = announcements.isEmpty
            ? #"<p class="muted" id="no-announcements">No announcements yet.</p>"#
            : """
                <div class="table-wrap"><table id="announcements"><caption class="sr-only">Announcements</caption>
                <thead><tr><th scope="col">Message</th><th scope="col">State</th><th scope="col">Sent (\(event.timeZone))</th>\
                <th scope="col">Alerts</th><th scope="col">Phones holding it</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        return """
            <section aria-labelledby="announcements-heading" id="announcements-section">
            <h2 id="announcements-heading">Announcements</h2>
            <p class="muted">A message on the back of every valid pass of this event, shown on the lock screen when it alerts. \
            A new one replaces the one the passes carry; withdrawing takes it off without an alert.</p>
            \(table)
            \(visitor.canWrite ? announcementForm : "")
            </section>
            """
    }

    private var announcementForm: HTML {
        let notify = announcing.values.isEmpty || announcing.value("notify") == "true"
        let issues = announcing.issues("message")
        let error: HTML? = issues.isEmpty ? nil : #"<p class="field-error" id="f-message-error">\#(issues.joined(separator: "; "))</p>"#
        let described: HTML = issues.isEmpty ? #" aria-describedby="f-message-hint""# : #" aria-describedby="f-message-hint f-message-error" aria-invalid="true""#
        return """
            <details\(announcing.status == 200 ? "" : " open") id="announce"><summary><h3 class="inline">Write an announcement</h3></summary>
            <form method="post" action="/admin/events/\(event.id)/announcements" class="stack">\(DashboardLayout.csrf(visitor))
            <label for="f-message">Message</label>
            <textarea id="f-message" name="message" rows="3" maxlength="\(FieldRules.maxAnnouncement)" required\(described)>\(announcing.value("message") ?? "")</textarea>\
            <small class="muted" id="f-message-hint">Plain text, at most \(FieldRules.maxAnnouncement) characters.</small>\(error)
            <p><input type="checkbox" id="f-notify" name="notify" value="true"\(notify ? " checked" : "")> \
            <label for="f-notify" class="inline">Alert the lock screen</label></p>
            \(DashboardLayout.field(
                "sendAt", label: "Send at (for Schedule, in \(event.timeZone))", value: announcing.value("sendAt"), type: "datetime-local",
                issues: announcing.issues("sendAt")
            ))
            <p class="actions"><button type="submit" name="when" value="now">Send now</button>
            <button type="submit" name="when" value="schedule" class="secondary">Schedule</button></p>
            </form></details>
            """
    }

    // MARK: Scheduled changes

    private var changesSection: HTML {
        guard !changes.isEmpty else { return "" }
        var rows = HTML.empty
        for change in changes {
            let action = change.action
            let state: (String, String) = switch action.state {
            case .pending: ("pending", "status-warn")
            case .applied: ("applied", "status-ok")
            case .failed: ("failed", "status-bad")
            case .cancelled: ("cancelled", "")
            }
            let reason: HTML = action.reason.map { #"<br><small class="status-bad">\#($0)</small>"# } ?? ""
            var controls: HTML = ""
            if visitor.canWrite && action.state == .pending {
                controls = """
                    <a href="/admin/events/\(event.id)/scheduled/\(change.id)" aria-label="Edit the change scheduled for \(text(action.dueAt))">Edit</a> \
                    <form method="post" action="/admin/events/\(event.id)/scheduled/\(change.id)/cancel" class="inline">\(DashboardLayout.csrf(visitor))\
                    <button type="submit" class="small secondary" aria-label="Cancel the change scheduled for \(text(action.dueAt))">Cancel</button></form>
                    """
            }
            rows += """
                <tr data-change="\(change.id)"><td>\(time(action.dueAt))</td>
                <td class="changes">\(Self.summary(change.payload, event: event))</td>
                <td class="\(state.1)">\(state.0)\(reason)</td>
                <td>\(controls)</td></tr>
                """
        }
        return """
            <section aria-labelledby="changes-heading" id="changes-section">
            <h2 id="changes-heading">Scheduled changes</h2>
            <div class="table-wrap"><table id="scheduled-changes"><caption class="sr-only">Scheduled changes</caption>
            <thead><tr><th scope="col">Applies at (\(event.timeZone))</th><th scope="col">Changes</th><th scope="col">State</th>\
            <th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            </section>
            """
    }

    /// What a scheduled edit changes, in words (times in the zone it leaves the event in).
    static func summary(_ payload: EventEditPayload, event: Event) -> HTML {
        let edit = payload.edit
        let zone = edit.timeZone ?? event.timeZone
        func local(_ date: Date) -> String { DashboardLayout.localInput(date, timeZone: zone).replacingOccurrences(of: "T", with: " ") }
        var parts: [HTML] = []
        if let name = edit.name { parts.append("Name: \(name)") }
        if let venue = edit.venue { parts.append("Venue: \(venue)") }
        if let starts = edit.startsAt { parts.append("Starts: \(local(starts))") }
        if let ends = edit.endsAt { parts.append(ends.map { "Ends: \(local($0))" } ?? "No end") }
        if let timeZone = edit.timeZone { parts.append("Time zone: \(timeZone)") }
        if let template = edit.template { parts.append("Template: \(template)") }
        if let language = edit.language { parts.append("Email language: \(language)") }
        if payload.design != nil { parts.append("A new pass design") }
        return HTML(joining: parts, separator: "<br>")
    }
}

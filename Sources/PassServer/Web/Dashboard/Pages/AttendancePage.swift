import Foundation
import Storage

/// An event's attendance page (`GET /admin/events/{id}/attendance`) as a function of its
/// numbers (`Attendance`): the headline figures, then plots of tickets issued, passes added to
/// Wallet and check-ins over time, who came and who did not, and the breakdowns by ticket type
/// and by gate, each drawn as SVG by `Plot` with its numbers in a table for screen readers.
struct AttendancePage {
    var event: Event
    var attendance: Attendance
    var visitor: DashboardSessions.Visitor

    func render() -> HTML {
        let zone = event.timeZone
        var body: HTML = """
            <p class="crumbs"><a href="/admin/">Events</a> › <a href="/admin/events/\(event.id)">\(event.name)</a></p>
            <div class="page-head"><div>
            <h1>Attendance</h1>
            <p class="subtitle">\(event.name) · \(DashboardLayout.dateText(event.startsAt, timeZone: zone)) · times in \(zone)</p>
            </div></div>
            """
        body += figures
        body += timePlot(
            attendance.issued, id: "plot-issued", title: "Tickets issued over time", unit: "tickets issued",
            empty: "No tickets issued yet."
        )
        body += timePlot(
            attendance.walletAdds, id: "plot-wallet", title: "Passes added to Wallet over time", unit: "passes added",
            empty: "No phone has added a pass yet.", note: "A pass counts once, when a phone first added it (whether or not that phone still holds it)."
        )
        body += timePlot(
            attendance.checkIns, id: "plot-checkins", title: "Check-ins per \(bucketName(attendance.checkIns?.buckets.widthMillis ?? AttendanceAxis.quarterHour))",
            unit: "check-ins", empty: "Nobody has checked in yet."
        )
        body += cameAndNot
        body += byType
        body += byGate
        return DashboardLayout.page(title: "Attendance · \(event.name)", visitor: visitor, body: body)
    }

    private var figures: HTML {
        let issued = attendance.issued?.total ?? 0
        let inWallet = attendance.walletAdds?.total ?? 0
        return """
            <h2 class="sr-only">Counts</h2>
            <dl class="stats">
            <div class="stat"><dt>\(DashboardLayout.Icon.ticket) Tickets issued</dt><dd id="att-issued">\(DashboardLayout.count(issued))</dd>
            <p class="of">\(DashboardLayout.count(attendance.activeTickets)) active</p></div>
            <div class="stat"><dt>\(DashboardLayout.Icon.phone) In Wallet</dt><dd id="att-wallet">\(DashboardLayout.count(inWallet))</dd>
            <p class="of">passes added to a phone</p></div>
            <div class="stat"><dt>\(DashboardLayout.Icon.check) Checked in</dt><dd id="att-checked-in">\(DashboardLayout.count(attendance.checkedIn))</dd>
            <p class="of"><span id="att-no-shows">\(DashboardLayout.count(attendance.noShows))</span> active tickets not checked in</p></div>
            </dl>
            """
    }

    private func timePlot(_ series: Attendance.Series?, id: String, title: String, unit: String, empty: String, note: String? = nil) -> HTML {
        guard let series else {
            return #"<section class="plot" id="\#(id)"><h2>\#(title)</h2><p class="muted" id="\#(id)-empty">\#(empty)</p></section>"#
        }
        let width = series.buckets.widthMillis
        let columns = series.counts.indices.map { index in
            Plot.Column(label: label(series.buckets.start(of: index), width: width), value: series.counts[index])
        }
        let peak = series.counts.indices.max { series.counts[$0] < series.counts[$1] }
        let bar = bucketName(width).first?.isNumber == true ? bucketName(width) : "one " + bucketName(width)
        var summary = "\(DashboardLayout.count(series.total)) \(unit) in \(series.counts.count) bars of \(bar) each"
        if let peak { summary += "; the most, \(DashboardLayout.count(series.counts[peak])), from \(columns[peak].label)" }
        summary += "."
        if let note { summary += " " + note }
        return Plot.columns(
            id: id, title: title, summary: summary, headers: ("From (\(event.timeZone))", unit.prefix(1).uppercased() + unit.dropFirst()), columns: columns
        ) { index in
            tick(series.buckets.start(of: index), width: width, first: index == 0)
        }
    }

    /// Active tickets: checked in, and not (the no-shows once the doors have closed).
    private var cameAndNot: HTML {
        let summary = "\(DashboardLayout.count(attendance.checkedIn)) of \(DashboardLayout.count(attendance.activeTickets)) active tickets checked in; "
            + "\(DashboardLayout.count(attendance.noShows)) not (no-shows, once the doors have closed)."
        return Plot.rows(
            id: "plot-no-shows", title: "Who came", summary: summary, headers: ["Tickets", "Checked in", "Not checked in"],
            rows: [Plot.Row(label: "Active tickets", values: [attendance.checkedIn, attendance.noShows])], classes: ["plot-bar", "plot-bar-out"],
            legend: ["Checked in", "Not checked in"]
        )
    }

    private var byType: HTML {
        guard !attendance.ticketTypes.isEmpty else {
            return #"<section class="plot" id="plot-types"><h2>By ticket type</h2><p class="muted" id="plot-types-empty">No active tickets.</p></section>"#
        }
        let rows = attendance.ticketTypes.map { type in
            Plot.Row(label: type.ticketType ?? "(no type)", values: [type.checkedIn, type.active - type.checkedIn])
        }
        return Plot.rows(
            id: "plot-types", title: "By ticket type",
            summary: "Active tickets of each ticket type (the ticketType field), checked in and not; \(attendance.ticketTypes.count) types.",
            headers: ["Ticket type", "Checked in", "Not checked in"], rows: rows, classes: ["plot-bar", "plot-bar-out"], legend: ["Checked in", "Not checked in"]
        )
    }

    private var byGate: HTML {
        guard !attendance.gates.isEmpty else {
            return #"<section class="plot" id="plot-gates"><h2>By gate</h2><p class="muted" id="plot-gates-empty">Nobody has checked in yet.</p></section>"#
        }
        let rows = attendance.gates.map { Plot.Row(label: $0.gate ?? "(no gate)", values: [$0.checkIns]) }
        let total = attendance.gates.reduce(0) { $0 + $1.checkIns }
        return Plot.rows(
            id: "plot-gates", title: "By gate",
            summary: "\(DashboardLayout.count(total)) check-ins at \(attendance.gates.count) gates, a ticket cancelled after it came in included.",
            headers: ["Gate", "Check-ins"], rows: rows, classes: ["plot-bar"], legend: ["Check-ins"]
        )
    }

    // MARK: Time labels, in the event's time zone

    private func parts(_ date: Date) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: event.timeZone) ?? .gmt
        return calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    }

    /// A bucket's start as its table row names it: the date, and the time for buckets under a day.
    private func label(_ date: Date, width: Int64) -> String {
        let local = DashboardLayout.localInput(date, timeZone: event.timeZone)
        return width >= 1_440 * AttendanceAxis.minute ? String(local.prefix(10)) : local.replacingOccurrences(of: "T", with: " ")
    }

    /// A tick below the axis: short (`19:15`, `03-14`, the date with the first tick of a day).
    private func tick(_ date: Date, width: Int64, first: Bool) -> String {
        let p = parts(date)
        let day = String(format: "%02d-%02d", p.month ?? 1, p.day ?? 1)
        if width >= 1_440 * AttendanceAxis.minute { return day }
        let time = String(format: "%02d:%02d", p.hour ?? 0, p.minute ?? 0)
        return first || (p.hour == 0 && p.minute == 0) ? "\(day) \(time)" : time
    }

    private func bucketName(_ width: Int64) -> String {
        let minutes = width / AttendanceAxis.minute
        switch minutes {
        case 15: return "15 minutes"
        case ..<60: return "\(minutes) minutes"
        case 60: return "hour"
        case ..<1_440 where minutes % 60 == 0: return "\(minutes / 60) hours"
        case 1_440: return "day"
        case 10_080: return "week"
        default: return minutes % 1_440 == 0 ? "\(minutes / 1_440) days" : "\(minutes) minutes"
        }
    }
}

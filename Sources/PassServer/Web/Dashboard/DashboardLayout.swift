import Foundation
import HTTPServer
import Storage

/// The dashboard's page chrome and the small pieces every page uses, as `HTML` (attendee names
/// and event titles are whatever someone typed: they are escaped by the interpolation).
enum DashboardLayout {
    /// A complete page: the navigation (for a signed-in visitor: events, a new event for admins,
    /// the scanner, who is signed in and signing out), a notice, `body`. Signed out, the page is
    /// one centred card (the sign-in form).
    static func page(
        title: String, visitor: DashboardSessions.Visitor?, notice: Notice? = nil, body: HTML, scripts: [String] = []
    ) -> HTML {
        let noticeHTML: HTML? = notice.map { #"<p class="notice \#($0.isError ? "error" : "ok")" role="\#($0.isError ? "alert" : "status")">\#($0.text)</p>"# }
        guard let visitor else {
            return HTML.document(
                title: "\(title) · PassServer",
                body: #"<main class="card-page"><p class="brand-mark">\#(Icon.ticket) PassServer</p>\#(noticeHTML)\#(body)</main>"#, scripts: scripts
            )
        }
        let newEvent: HTML? = visitor.canWrite ? #"<a href="/admin/events/new">\#(Icon.plus)<span>New event</span></a>"# : nil
        let navigation: HTML = """
            <header class="bar"><nav class="nav" aria-label="Dashboard">
            <a class="brand" href="/admin/">\(Icon.ticket)<span>PassServer</span></a>
            \(visitor.isDoorStaff ? nil : #"<a href="/admin/">\#(Icon.calendar)<span>Events</span></a>"# as HTML)\(newEvent)
            <a href="/admin/scan">\(Icon.scan)<span>Scanner</span></a>
            \(visitor.isDoorStaff ? nil : #"<a href="/admin/webhooks">\#(Icon.webhook)<span>Webhooks</span></a>"# as HTML)
            </nav>
            <div class="session"><span class="who">\(visitor.tokenName) (\(visitor.role.rawValue))</span>
            <form method="post" action="/admin/sign-out" class="inline">\(csrf(visitor))<button type="submit" class="quiet">\(Icon.signOut)<span>Sign out</span></button></form></div>
            </header>
            """
        return HTML.document(
            title: "\(title) · PassServer", body: #"<div class="app">\#(navigation)<main>\#(noticeHTML)\#(body)</main></div>"#, scripts: scripts
        )
    }

    /// The dashboard's icons: inline SVG drawn with the text colour, hidden from screen readers
    /// (the text beside each says what it is).
    enum Icon {
        private static func svg(_ paths: HTML) -> HTML {
            #"<svg class="icon" viewBox="0 0 20 20" width="20" height="20" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">\#(paths)</svg>"#
        }

        static let ticket = svg(#"<path d="M3 6.5A1.5 1.5 0 0 1 4.5 5h11A1.5 1.5 0 0 1 17 6.5V8a2 2 0 0 0 0 4v1.5a1.5 1.5 0 0 1-1.5 1.5h-11A1.5 1.5 0 0 1 3 13.5V12a2 2 0 0 0 0-4z"/><path d="M12 5v10" stroke-dasharray="1.5 1.5"/>"#)
        static let calendar = svg(#"<rect x="3" y="4.5" width="14" height="12" rx="2"/><path d="M3 8.5h14M7 3v3M13 3v3"/>"#)
        static let plus = svg(#"<path d="M10 4v12M4 10h12"/>"#)
        static let scan = svg(#"<path d="M3 7V4.5A1.5 1.5 0 0 1 4.5 3H7M13 3h2.5A1.5 1.5 0 0 1 17 4.5V7M17 13v2.5a1.5 1.5 0 0 1-1.5 1.5H13M7 17H4.5A1.5 1.5 0 0 1 3 15.5V13M6 10h8"/>"#)
        static let phone = svg(#"<rect x="6" y="2.5" width="8" height="15" rx="1.8"/><path d="M9 15h2"/>"#)
        static let check = svg(#"<path d="M4 10.5l4 4 8-9"/>"#)
        static let webhook = svg(#"<circle cx="6" cy="14" r="2.2"/><circle cx="14" cy="14" r="2.2"/><circle cx="10" cy="5.5" r="2.2"/><path d="M8.9 7.5 6.8 11.9M11.1 7.5l2.1 4.4M8.2 14h3.6"/>"#)
        static let signOut = svg(#"<path d="M8 4H5a1 1 0 0 0-1 1v10a1 1 0 0 0 1 1h3M12 6.5 15.5 10 12 13.5M15.5 10H8"/>"#)
    }

    /// A message at the top of a page.
    struct Notice: Sendable {
        var text: String
        var isError = false
    }

    /// The hidden CSRF field of every form.
    static func csrf(_ visitor: DashboardSessions.Visitor) -> HTML {
        #"<input type="hidden" name="\#(DashboardSessions.csrfField)" value="\#(visitor.csrfToken)">"#
    }

    /// The id of a form field's input (`f-extra-tier` for `extra.tier`).
    static func fieldID(_ name: String) -> String {
        "f-" + name.replacingOccurrences(of: ".", with: "-")
    }

    /// A labelled input. `attributes` is the caller's own markup (`required maxlength=200`);
    /// `issues` are the problems a refused submission found with this field, shown under it.
    static func field(
        _ name: String, label: String, value: String? = nil, type: String = "text", attributes: HTML = "", hint: String? = nil,
        issues: [String] = []
    ) -> HTML {
        let id = fieldID(name)
        let hintHTML: HTML? = hint.map { #"<small class="muted" id="\#(id)-hint">\#($0)</small>"# }
        let errorHTML: HTML? = issues.isEmpty ? nil : #"<p class="field-error" id="\#(id)-error">\#(issues.joined(separator: "; "))</p>"#
        let describedBy = [hint == nil ? nil : id + "-hint", issues.isEmpty ? nil : id + "-error"].compactMap { $0 }.joined(separator: " ")
        let described: HTML? = describedBy.isEmpty ? nil : #" aria-describedby="\#(describedBy)""#
        let invalid: HTML? = issues.isEmpty ? nil : #" aria-invalid="true""#
        return """
            <label for="\(id)">\(label)</label>
            <input id="\(id)" name="\(name)" type="\(type)" value="\(value ?? "")"\(described)\(invalid) \(attributes)>\(hintHTML)\(errorHTML)
            """
    }

    /// A labelled select; `options` are (value, text).
    static func select(_ name: String, label: String, options: [(String, String)], selected: String?, issues: [String] = []) -> HTML {
        let id = fieldID(name)
        let items = HTML(joining: options.map { value, text in
            #"<option value="\#(value)"\#(value == selected ? " selected" as HTML : "")>\#(text)</option>"# as HTML
        })
        let errorHTML: HTML? = issues.isEmpty ? nil : #"<p class="field-error" id="\#(id)-error">\#(issues.joined(separator: "; "))</p>"#
        let invalid: HTML? = issues.isEmpty ? nil : #" aria-invalid="true" aria-describedby="\#(id)-error""#
        return #"<label for="\#(id)">\#(label)</label><select id="\#(id)" name="\#(name)"\#(invalid)>\#(items)</select>\#(errorHTML)"#
    }

    /// `date` in `timeZone` as people read it: `2027-03-01 19:00 (Asia/Tokyo)`.
    static func dateText(_ date: Date, timeZone: String) -> String {
        "\(localInput(date, timeZone: timeZone).replacingOccurrences(of: "T", with: " ")) (\(timeZone))"
    }

    /// `date` in `timeZone` as a `datetime-local` input's value (`2027-03-01T19:00`).
    static func localInput(_ date: Date, timeZone: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone) ?? .gmt
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0
        )
    }

    /// A `datetime-local` value (`2027-03-01T19:00`, seconds optional) read in `timeZone`; nil
    /// when it is not such a value.
    static func date(local text: String, timeZone: String) -> Date? {
        let pieces = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).map { Int($0) }
        guard (5...6).contains(pieces.count), !pieces.contains(nil), text.utf8.count <= 19 else { return nil }
        let numbers = pieces.compactMap { $0 }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone) ?? .gmt
        let components = DateComponents(
            year: numbers[0], month: numbers[1], day: numbers[2], hour: numbers[3], minute: numbers[4], second: numbers.count > 5 ? numbers[5] : 0
        )
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        // As the API's dates: a year 1970–9999.
        guard let year = components.year, (1970...9999).contains(year) else { return nil }
        return date
    }

    /// A number with thousands separators.
    static func count(_ value: some BinaryInteger) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.reversed().enumerated() {
            if index > 0, index % 3 == 0, character != "-" { out.append(",") }
            out.append(character)
        }
        return String(out.reversed())
    }

    /// A link target with query parameters (values percent-encoded), e.g. for paging.
    static func link(_ path: String, _ query: [(String, String?)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let items = query.compactMap { name, value in
            value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        }
        return items.isEmpty ? path : path + "?" + items.joined(separator: "&")
    }
}

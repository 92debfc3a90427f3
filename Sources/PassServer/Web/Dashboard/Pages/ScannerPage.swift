import Foundation
import Storage

/// The door's scanner page (`GET /admin/scan`): the event to count, the code input (a wedge
/// scanner's code or a typed check code), the camera's buttons and preview, and the result panel
/// scanner.js fills in; a viewer sees the page without a scan input.
struct ScannerPage {
    /// The events offered, in the order offered.
    var events: [Event]
    /// The id of the event chosen by the link (`?event=`), when it is one of `events`.
    var selected: String?
    var visitor: DashboardSessions.Visitor
    var notice: DashboardLayout.Notice?

    var canScan: Bool { visitor.role.permits(.scanner) }

    func render() -> HTML {
        let options = [("", "Choose the event")] + events.map { event in
            (event.id, "\(event.name) · \(DashboardLayout.dateText(event.startsAt, timeZone: event.timeZone))")
        }
        // Each offered event's zone, for the script to show times in (ids and zone names hold no spaces).
        let zones = events.map { "\($0.id)=\($0.timeZone)" }.joined(separator: " ")
        let scanner: HTML
        if canScan {
            scanner = """
                <form id="scan-form" class="scan-form" autocomplete="off">
                <label for="scan-code">Ticket code or check code</label>
                <input id="scan-code" name="code" type="text" inputmode="text" maxlength="256" autocomplete="off" autocapitalize="off" spellcheck="false" autofocus enterkeyhint="go">
                <button type="submit">Check in</button>
                </form>
                <div class="scan-camera" id="scan-camera">
                <button type="button" id="scan-camera-start" hidden>Scan with the camera</button>
                <button type="button" id="scan-camera-stop" hidden>Stop the camera</button>
                <p id="scan-camera-status" class="scan-camera-status" role="status" hidden></p>
                <video id="scan-video" class="scan-video" playsinline muted hidden></video>
                </div>
                <div id="scan-result" class="scan-result idle" role="status" aria-live="assertive" aria-atomic="true">
                <p class="scan-title" id="scan-title">Ready</p><p class="scan-detail" id="scan-detail">Scan a ticket, or type the check code under its QR code (as 3Q3Q-S6MN) and press Enter.</p>
                </div>
                <p id="scan-waiting" class="scan-waiting" hidden></p>
                <section id="scan-sent-box" hidden><h2>Sent after reconnecting</h2><ol id="scan-sent" class="scan-list"></ol></section>
                <details><summary>Gate</summary>
                \(DashboardLayout.field("gate", label: "Gate (sent with every scan)", attributes: #"maxlength="64""#))
                </details>
                """
        } else {
            scanner = """
                <p class="notice error" role="alert">A \(visitor.role.rawValue) token cannot check tickets in. Sign in with a scanner or admin token to scan.</p>
                """
        }
        // A door-staff phone scans for its one event: named, not chosen.
        let chooser: HTML = if visitor.isDoorStaff, let event = events.first {
            """
            <p class="scan-event"><span class="scan-event-name">\(event.name)</span> · \(DashboardLayout.dateText(event.startsAt, timeZone: event.timeZone))</p>
            <select id="f-event" name="event" hidden disabled><option value="\(event.id)" selected>\(event.name)</option></select>
            """
        } else {
            DashboardLayout.select("event", label: "Event", options: options, selected: selected)
        }
        let body: HTML = """
            <div id="scanner" class="scanner" data-csrf="\(visitor.csrfToken)" data-zones="\(zones)" data-can-scan="\(canScan ? "true" : "false")">
            <h1 class="sr-only">Scanner</h1>
            \(chooser)
            <p class="scan-count" id="scan-count-line" aria-live="polite"><span id="scan-count">–</span> checked in</p>
            \(scanner)
            </div>
            """
        return DashboardLayout.page(title: "Scanner", visitor: visitor, notice: notice, body: body, scripts: canScan ? ["scanner.js"] : [])
    }
}

/// The sign-in page: one centred card with the token field; `challenge` is the value of the
/// form's CSRF field (its cookie is set beside the page).
struct SignInPage {
    var challenge: String
    var notice: DashboardLayout.Notice?

    func render() -> HTML {
        let body: HTML = """
            <h1>Sign in</h1>
            <p>Sign in with an admin token (<code>pass-server token create</code> makes one). A viewer token can look but not change anything; a scanner token opens the <a href="/admin/scan">scanner page</a> for the door.</p>
            <form method="post" action="/admin/sign-in" class="stack">
            <input type="hidden" name="\(DashboardSessions.csrfField)" value="\(challenge)">
            \(DashboardLayout.field("token", label: "Admin token", type: "password", attributes: #"required autocomplete="off" autofocus"#))
            <p><button type="submit">Sign in</button></p>
            </form>
            """
        return DashboardLayout.page(title: "Sign in", visitor: nil, notice: notice, body: body)
    }
}

/// A page saying what did not work, for the status it is answered with.
struct ErrorPage {
    var status: Int
    var message: String
    var visitor: DashboardSessions.Visitor?

    func render() -> HTML {
        let body: HTML = """
            <h1>\(status == 404 ? "Not found" : status == 403 ? "Not allowed" : "That did not work")</h1>
            <p class="notice error" role="alert">\(message)</p>
            <p><a href="/admin/">Back to the events</a></p>
            """
        return DashboardLayout.page(title: "Error", visitor: visitor, body: body)
    }
}

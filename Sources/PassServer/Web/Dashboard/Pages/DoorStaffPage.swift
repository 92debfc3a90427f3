import Foundation
import Storage

/// An event's door staff (`GET /admin/events/{eventId}/door-staff`; a viewer sees the list only): the form that
/// gives someone scanner access, the sign-in QR code and short link of the access just made
/// (shown once: only its hash is kept), and every access with its signed-in phones and a revoke
/// button.
struct DoorStaffPage {
    var event: Event
    var accesses: [DoorStaff.Listed]
    /// The access just made and its link.
    var created: (created: DoorStaff.Created, link: String)?
    var form: FormState
    var visitor: DashboardSessions.Visitor
    var notice: DashboardLayout.Notice?
    var now: Date
    /// When an access made now without an expiry expires.
    var defaultExpiry: Date

    func render() -> HTML {
        let id = event.id
        var body: HTML = """
            <p class="crumbs"><a href="/admin/">Events</a> / <a href="/admin/events/\(id)">\(event.name)</a></p>
            <div class="page-head"><div><h1>Door staff</h1>
            <p class="subtitle">\(DashboardLayout.Icon.scan) Phones signed in here scan the tickets of \(event.name) only, and open no other page.</p></div></div>
            """
        if let created { body += createdPanel(created.created, link: created.link) }
        if visitor.canWrite { body += newForm }
        body += list
        return DashboardLayout.page(title: "Door staff · \(event.name)", visitor: visitor, notice: notice, body: body)
    }

    private var newForm: HTML {
        let id = event.id
        return """
            <section class="door-new" aria-labelledby="door-new-title"><h2 id="door-new-title">Give scanner access</h2>
            <form method="post" action="/admin/events/\(id)/door-staff" class="stack">\(DashboardLayout.csrf(visitor))
            \(DashboardLayout.field("name", label: "Name", value: form.value("name"), attributes: #"required maxlength="80" placeholder="North gate – Sam""#, hint: "Who or which gate: check-ins record it.", issues: form.issues("name")))
            \(DashboardLayout.field("expiresAt", label: "Expires", value: form.value("expiresAt"), type: "datetime-local", hint: "In \(event.timeZone). Empty: \(DashboardLayout.dateText(defaultExpiry, timeZone: event.timeZone)), when the door closes (the event's end and the check-in grace). At most \(Int(DoorStaff.maxLifetime / 86_400)) days from now: a later time is taken as that.", issues: form.issues("expiresAt")))
            <p><button type="submit">Create sign-in link</button></p>
            </form></section>
            """
    }


    private func createdPanel(_ created: DoorStaff.Created, link: String) -> HTML {
        let qr: HTML = (try? QRCode(link))?.svg(label: "Sign-in QR code for \(created.access.name)") ?? ""
        return """
            <section class="door-created" id="door-created" aria-labelledby="door-created-title">
            <h2 id="door-created-title">Sign-in link for \(created.access.name)</h2>
            <div class="door-created-body">
            <figure class="qr" id="door-qr">\(qr)<figcaption class="muted">Scan with the phone's camera.</figcaption></figure>
            <div>
            <p>Or open this link on the phone:</p>
            <p class="door-link"><a id="door-link" href="\(url: link)">\(link)</a></p>
            <p>Code <strong class="door-code" id="door-code">\(created.code)</strong></p>
            <p class="muted">Valid until \(DashboardLayout.dateText(created.access.expiresAt, timeZone: event.timeZone)), for as many phones as open it, until you revoke it. It is shown only now: make a new one if you need it again.</p>
            </div></div></section>
            """
    }

    private var list: HTML {
        guard !accesses.isEmpty else {
            return #"<section aria-labelledby="door-list-title"><h2 id="door-list-title">Scanner access</h2><p class="muted" id="no-door-staff">No one has scanner access to this event yet.</p></section>"#
        }
        var rows: HTML = ""
        for listed in accesses {
            let access = listed.access
            let state: HTML = if access.revokedAt != nil {
                #"<span class="status-bad">revoked</span>"#
            } else if access.expiresAt <= now {
                #"<span class="status-bad">expired</span>"#
            } else {
                #"<span class="status-ok">active</span>"#
            }
            let devices = HTML(joining: listed.sessions.map { session in
                "<li>\(session.device), last seen \(DashboardLayout.dateText(session.lastSeenAt, timeZone: event.timeZone))</li>" as HTML
            })
            let phones: HTML = listed.sessions.isEmpty
                ? #"<span class="muted">none</span>"#
                : #"\#(listed.sessions.count) signed in<ul class="door-phones">\#(devices)</ul>"#
            let revoke: HTML? = visitor.canWrite && access.isUsable(at: now)
                ? """
                    <form method="post" action="/admin/events/\(event.id)/door-staff/\(String(access.id))/revoke" class="inline">\(DashboardLayout.csrf(visitor))\
                    <button type="submit" class="small danger" aria-label="Revoke \(access.name)">Revoke</button></form>
                    """
                : nil
            rows += """
                <tr data-access="\(String(access.id))"><td>\(access.name)</td><td>\(access.createdBy)</td>
                <td>\(DashboardLayout.dateText(access.expiresAt, timeZone: event.timeZone))</td><td>\(state)</td><td>\(phones)</td><td>\(revoke)</td></tr>
                """
        }
        return """
            <section aria-labelledby="door-list-title"><h2 id="door-list-title">Scanner access</h2>
            <div class="table-wrap"><table id="door-staff"><caption class="sr-only">Scanner access</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Created by</th><th scope="col">Expires</th><th scope="col">State</th><th scope="col">Phones</th><th scope="col"><span class="sr-only">Revoke</span></th></tr></thead>
            <tbody>\(rows)</tbody></table></div></section>
            """
    }
}

/// The page a door-staff sign-in link opens: the event and the access, and one button that signs
/// this browser in (`POST /admin/s/{code}`, with the sign-in form's double-submit value).
struct DoorSignInPage {
    var access: ScannerAccess
    var event: Event
    var code: String
    var challenge: String

    func render() -> HTML {
        let body: HTML = """
            <h1>Scan tickets</h1>
            <p>\(event.name)<br><span class="muted">\(DashboardLayout.dateText(event.startsAt, timeZone: event.timeZone)) · \(event.venue)</span></p>
            <p>Signed in as <strong>\(access.name)</strong>, until \(DashboardLayout.dateText(access.expiresAt, timeZone: event.timeZone)). This phone will open the scanner page of this event only.</p>
            <form method="post" action="\(url: "/admin/s/" + code)" class="stack">
            <input type="hidden" name="\(DashboardSessions.csrfField)" value="\(challenge)">
            <p><button type="submit" id="door-start">Start scanning</button></p>
            </form>
            """
        return DashboardLayout.page(title: "Scan tickets", visitor: nil, body: body)
    }
}

/// The page of a sign-in link that does not work (unknown, expired, revoked).
struct DoorLinkRefusedPage {
    var status: Int
    var message: String

    func render() -> HTML {
        let body: HTML = """
            <h1>\(status == 410 ? "Link no longer valid" : "Link not valid")</h1>
            <p class="notice error" role="alert" id="door-refused">\(message)</p>
            """
        return DashboardLayout.page(title: "Sign-in link", visitor: nil, body: body)
    }
}

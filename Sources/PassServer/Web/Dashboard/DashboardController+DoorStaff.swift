import Foundation
import HTTPServer
import Storage

/// Door staff from the dashboard (`DoorStaff`): the event's "Door staff" page (a viewer sees the
/// list only), where an admin gives a volunteer scanner access and shows its sign-in QR code and short link, sees who is
/// signed in and revokes an access; and the link itself (`/admin/s/{code}`), which signs a phone
/// into that event's scanner page.
///
/// Opening the link shows a page with one button; the sign-in is its form's `POST`, which carries
/// the sign-in form's double-submit value (`DashboardSessions.signInChallenge`). So a link preview
/// or a prefetch signs nothing in, and the session cookie (`SameSite=Strict`) is set by a
/// same-site request, whatever app the link was opened from. Every lookup of a code takes a token
/// of the client's bucket (`doorLinks`): codes cannot be tried in bulk.
extension DashboardController {
    func registerDoorStaff(in router: inout Router) {
        router.get("/admin/events/:eventId/door-staff", maxBodySize: Self.pageBodyLimit, query: ["notice"]) { request in
            read(request) { visitor in try doorStaffPage(request, visitor) }
        }
        router.post("/admin/events/:eventId/door-staff", preflight: formPreflight()) { request in
            write(request) { visitor, form in try createScannerAccess(visitor, form, request) }
        }
        router.post("/admin/events/:eventId/door-staff/:accessId/revoke", preflight: formPreflight()) { request in
            write(request) { _, _ in
                let event = try organizer.event(id: request.parameters["eventId"])
                _ = try admin.doorStaff.revoke(event: event, id: request.parameters["accessId"])
                return Self.redirect("/admin/events/\(event.id)/door-staff?notice=door-revoked")
            }
        }
        router.get("/admin/s/:code", maxBodySize: Self.pageBodyLimit) { request in doorLinkPage(request) }
        router.post("/admin/s/:code", maxBodySize: Self.signInBodyLimit, preflight: signInPreflight()) { request in doorSignIn(request) }
    }

    /// The door-staff page, with `created` (just made: its link and QR code) above the list.
    func doorStaffPage(
        _ request: Request, _ visitor: DashboardSessions.Visitor, created: DoorStaff.Created? = nil, form: FormState = FormState()
    ) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        let page = DoorStaffPage(
            event: event, accesses: try admin.doorStaff.list(event: event), created: created.map { ($0, doorLink($0.code)) }, form: form,
            visitor: visitor, notice: form.notice(shown: ["name", "expiresAt"]) ?? Self.notice(request), now: admin.now(),
            defaultExpiry: admin.doorStaff.defaultExpiry(for: event)
        )
        var response = Response.html(page.render(), status: form.status)
        // The page may show a sign-in code once: no cache keeps it.
        response.headers.replace(name: "Cache-Control", value: "no-store")
        return response
    }

    func createScannerAccess(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let event = try organizer.event(id: request.parameters["eventId"])
        var unreadable: OrganizerError.Issue?
        var expiresAt: Date?
        let text = AdminText.trimmed(form["expiresAt"] ?? "")
        if !text.isEmpty {
            expiresAt = DashboardLayout.date(local: text, timeZone: event.timeZone)
            if expiresAt == nil { unreadable = OrganizerError.Issue("expiresAt", "must be a date and time (YYYY-MM-DDTHH:MM)") }
        }
        do {
            if let unreadable { throw OrganizerError.invalid([unreadable]) }
            let created = try admin.doorStaff.create(event: event, name: form["name"], expiresAt: expiresAt, createdBy: visitor.tokenName)
            logger.info("scanner access created", ["event.id": event.id, "access.id": "\(created.access.id)", "request.id": request.requestID])
            return try doorStaffPage(request, visitor, created: created)
        } catch let refusal as OrganizerError {
            guard let shown = FormState(form).refused(refusal) else { throw refusal }
            return try doorStaffPage(request, visitor, form: shown)
        }
    }

    /// The short link of a code, on the public URL.
    func doorLink(_ code: String) -> String {
        admin.passes.webServiceURL + "/admin/s/" + code
    }

    // MARK: The link

    /// `GET /admin/s/{code}`: the sign-in page of a usable access, or a page saying why the link
    /// does not work (404 unknown, 410 expired or revoked, 429 too many tries).
    func doorLinkPage(_ request: Request) -> Response {
        render(request) {
            switch try doorLookup(request) {
            case .usable(let access, let event):
                let challenge = sessions.signInChallenge()
                var headers: HTTPHeaders = ["Cache-Control": "no-store"]
                headers.add(name: "Set-Cookie", value: challenge.cookie)
                return .html(
                    DoorSignInPage(access: access, event: event, code: DoorStaff.normalized(request.parameters["code"] ?? "") ?? "", challenge: challenge.value).render(),
                    headers: headers
                )
            case let refused:
                return doorLinkRefused(refused)
            }
        }
    }

    /// `POST /admin/s/{code}`: signs this browser into the access's scanner page.
    func doorSignIn(_ request: Request) -> Response {
        render(request) {
            let form = try request.formFields()
            guard sessions.signInChallengeMatches(form, request) else {
                // The page was open too long (its cookie expired): the link's page again.
                return Self.redirect("/admin/s/\(DoorStaff.normalized(request.parameters["code"] ?? "") ?? "")")
            }
            switch try doorLookup(request) {
            case .usable(let access, _):
                var response = Self.redirect("/admin/scan")
                response.headers.add(name: "Set-Cookie", value: try sessions.signIn(access, request: request))
                response.headers.add(name: "Set-Cookie", value: sessions.clearSignInCookie)
                logger.info("door staff signed in", ["event.id": access.eventID, "access.id": "\(access.id)", "request.id": request.requestID])
                return response
            case let refused:
                return doorLinkRefused(refused)
            }
        }
    }

    private func doorLookup(_ request: Request) throws -> DoorStaff.Lookup {
        guard doorLinks.allow(request.clientAddress, now: Date()) else {
            throw HTTPError(status: 429, code: "too_many_requests", message: "Too many sign-in links tried from this address. Wait a minute and try again.")
        }
        return try admin.doorStaff.lookup(code: request.parameters["code"] ?? "")
    }

    private func doorLinkRefused(_ lookup: DoorStaff.Lookup) -> Response {
        let (status, message): (Int, String) = switch lookup {
        case .revoked: (410, "This sign-in link was revoked. Ask the organizer for a new one.")
        case .expired: (410, "This sign-in link has expired. Ask the organizer for a new one.")
        case .unknown, .usable: (404, "This sign-in link is not valid. Check that it was typed in full, or ask the organizer for a new one.")
        }
        var response = Response.html(DoorLinkRefusedPage(status: status, message: message).render(), status: status)
        response.headers.replace(name: "Cache-Control", value: "no-store")
        return response
    }
}

import Foundation
import HTTPServer
import Logging
import PassBundle
import Storage

/// The organizers' dashboard under `/admin/`: server-rendered pages over the same operations as
/// the JSON admin API (`AdminController`), signed in with an admin token (`DashboardSessions`).
///
/// Reading needs a session of a viewer or admin token; every `POST` needs the session's CSRF
/// token and an admin token (403 otherwise); its preflight (`DashboardController+Preflight`)
/// refuses a visitor without such a session before one byte of the body is read. Pages answer
/// HTML, errors included. A scanner token's session reaches only the scanner page and its JSON
/// calls (`DashboardController+Scan`).
struct DashboardController: Sendable {
    let admin: AdminController
    let sessions: DashboardSessions
    /// The scanner page's camera frames read on the server (`POST /admin/scan/decode`).
    let frames = FrameDecoding()
    /// Lookups of door-staff sign-in links per client: a phone or a team behind one address signs
    /// in at once, guessing codes is throttled to a trickle (`DoorStaff`).
    let doorLinks = RateLimiter(burst: 30, perMinute: 10)

    var store: any Store { admin.store }
    var logger: Logger { admin.logger }
    /// The operations the forms reach (the same the admin API's routes reach).
    var organizer: Organizer { admin.organizer }

    /// Notices a redirect may ask a page to show (`?notice=`): fixed texts, never the query's own.
    static let notices: [String: String] = [
        "created": "Event created.", "saved": "Saved.", "issued": "Ticket issued.", "imported": "Tickets issued.",
        "cancelled": "Ticket cancelled.", "rotated": "The download link was replaced; the previous one no longer works.",
        "email-queued": "Email queued.", "archived": "Event archived: changes no longer push phones.",
        "unarchived": "Event unarchived: changes push phones again.", "signed-out": "Signed out.",
        "design-saved": "Design saved.", "door-revoked": "Scanner access revoked: its phones are signed out.",
        "erased": "Attendee data erased: names, emails, seats and extra fields are gone; the counts stay.",
        "deleted": "Event deleted: its tickets are voided and phones are being updated; the rows go once they have.",
        "checkin-undone": "Check-in undone: the ticket can be checked in again.",
        "template-uploaded": "Template uploaded. Check which ticket data each field shows, then save the mapping.",
        "template-replaced": "Template replaced; fields it still has keep their mapping.", "mapping-saved": "Mapping saved.",
        "announced": "Announcement sent: every valid pass is being updated.", "announcement-scheduled": "Announcement scheduled.",
        "withdrawn": "Announcement withdrawn: the passes are being updated, without an alert.",
        "announcement-cancelled": "Scheduled announcement cancelled.", "change-scheduled": "Change scheduled.",
        "change-saved": "Scheduled change saved.", "change-cancelled": "Scheduled change cancelled.",
    ]

    func register(in router: inout Router) {
        router.get("/admin", maxBodySize: Self.pageBodyLimit) { _ in Self.redirect("/admin/") }
        router.get("/admin/", maxBodySize: Self.pageBodyLimit, query: ["q", "when", "cursor", "notice"]) { request in
            guard let visitor = try? sessions.visitor(request, allowingScanner: true) else { return signInPage(request) }
            // A scanner token's session has one page.
            if visitor.role == .scanner { return Self.redirect("/admin/scan") }
            return render(request) { try eventsPage(request, visitor) }
        }
        router.post("/admin/sign-in", maxBodySize: Self.signInBodyLimit, preflight: signInPreflight()) { request in signIn(request) }
        router.post("/admin/sign-out", preflight: formPreflight(needsAdmin: false, allowingScanner: true)) { request in
            write(request, needsAdmin: false, allowingScanner: true) { visitor, _ in
                var response = Self.redirect("/admin/?notice=signed-out")
                response.headers.add(name: "Set-Cookie", value: try sessions.signOut(visitor))
                return response
            }
        }
        router.get("/admin/events/new", maxBodySize: Self.pageBodyLimit) { request in read(request) { visitor in try newEventPage(visitor, form: FormState()) } }
        router.post("/admin/events", preflight: formPreflight()) { request in write(request) { visitor, form in try createEvent(visitor, form, request) } }
        router.get("/admin/events/:eventId", maxBodySize: Self.pageBodyLimit, query: ["q", "status", "checkedIn", "cursor", "notice", "count", "job"]) { request in
            read(request) { visitor in try eventPage(request, visitor) }
        }
        router.get("/admin/events/:eventId/edit", maxBodySize: Self.pageBodyLimit) { request in
            read(request) { visitor in try editEventPage(try organizer.event(id: request.parameters["eventId"]), visitor) }
        }
        router.post("/admin/events/:eventId/edit", preflight: formPreflight()) { request in write(request) { visitor, form in try updateEvent(visitor, form, request) } }
        router.post("/admin/events/:eventId/archive", preflight: formPreflight()) { request in write(request) { _, form in try archive(form, request) } }
        router.post("/admin/events/:eventId/erase", preflight: formPreflight()) { request in write(request) { visitor, form in try erase(visitor, form, request) } }
        router.post("/admin/events/:eventId/delete", preflight: formPreflight()) { request in write(request) { visitor, form in try delete(visitor, form, request) } }
        router.post("/admin/events/:eventId/tickets", preflight: formPreflight()) { request in write(request) { visitor, form in try issueTicket(visitor, form, request) } }
        router.post("/admin/events/:eventId/import", maxBodySize: Self.importBodyLimit, preflight: importPreflight()) { request in
            write(request) { visitor, form in try importTickets(visitor, form, request) }
        }
        router.post("/admin/events/:eventId/email", preflight: formPreflight()) { request in write(request) { _, form in try emailEvent(form, request) } }
        router.get("/admin/events/:eventId/tickets.csv", maxBodySize: Self.pageBodyLimit) { request in
            read(request) { visitor in
                let event = try organizer.event(id: request.parameters["eventId"])
                return TicketExport(admin: admin, eventID: event.id, fields: organizer.templateFields(of: event), downloadURLs: visitor.canWrite).response
            }
        }
        router.get("/admin/tickets/:serialNumber", maxBodySize: Self.pageBodyLimit, query: ["notice"]) { request in
            read(request) { visitor in try ticketPage(request, visitor, notice: nil) }
        }
        router.post("/admin/tickets/:serialNumber", preflight: formPreflight()) { request in write(request) { visitor, form in try updateTicket(visitor, form, request) } }
        router.post("/admin/tickets/:serialNumber/cancel", preflight: formPreflight()) { request in write(request) { visitor, form in try cancelTicket(visitor, form, request) } }
        router.post("/admin/tickets/:serialNumber/download-link", preflight: formPreflight()) { request in write(request) { _, form in try rotateLink(form, request) } }
        router.post("/admin/tickets/:serialNumber/email", preflight: formPreflight()) { request in write(request) { _, _ in try emailTicket(request) } }
        router.post("/admin/tickets/:serialNumber/checkin/undo", preflight: formPreflight()) { request in
            write(request) { visitor, form in try undoCheckIn(visitor, form, request) }
        }
        router.get("/admin/events/:eventId/attendance", maxBodySize: Self.pageBodyLimit) { request in
            read(request) { visitor in try attendancePage(request, visitor) }
        }
        registerDesign(in: &router)
        registerScheduling(in: &router)
        registerScanner(in: &router)
        registerDoorStaff(in: &router)
        registerTemplates(in: &router)
        registerOrders(in: &router)
        registerWebhooks(in: &router)
        router.get("/admin/jobs/:jobId/progress", maxBodySize: Self.pageBodyLimit) { request in
            guard try sessions.visitor(request) != nil else { throw HTTPError(status: 401, code: "unauthorized", message: "Sign in first.") }
            var response = Response.json(try admin.jobDetails(id: request.parameters["jobId"]), encoder: .api)
            response.headers.replace(name: "Cache-Control", value: "private, no-store")
            return response
        }
    }

    // MARK: Guards

    /// A page for a signed-in visitor (a visitor without a session goes to the sign-in page).
    func read(_ request: Request, _ body: (DashboardSessions.Visitor) throws -> Response) -> Response {
        let visitor: DashboardSessions.Visitor?
        do {
            visitor = try sessions.visitor(request)
        } catch {
            return errorPage(error, visitor: nil)
        }
        guard let visitor else { return Self.redirect("/admin/") }
        admin.settleReach()
        return render(request, visitor: visitor) { try body(visitor) }
    }

    /// A form submission: a session (403 without), its CSRF token (403 without), an admin token
    /// unless `needsAdmin` is false (403 for a viewer); then `body`. A scanner token's session
    /// counts only where `allowingScanner` (signing out).
    func write(
        _ request: Request, needsAdmin: Bool = true, allowingScanner: Bool = false,
        _ body: (DashboardSessions.Visitor, FormFields) throws -> Response
    ) -> Response {
        var current: DashboardSessions.Visitor?
        do {
            guard let visitor = try sessions.visitor(request, allowingScanner: allowingScanner) else {
                throw Self.signedOut
            }
            current = visitor
            let form = try request.formFields()
            try sessions.checkCSRF(form, visitor)
            if needsAdmin && !visitor.canWrite {
                throw AdminAuthentication.forbidden(visitor.role, needs: .admin)
            }
            return try body(visitor, form)
        } catch {
            return failure(error, request, visitor: current)
        }
    }

    /// Runs `body`, rendering a thrown error as an HTML page with its status.
    func render(_ request: Request, visitor: DashboardSessions.Visitor? = nil, _ body: () throws -> Response) -> Response {
        do {
            return try body()
        } catch {
            return failure(error, request, visitor: visitor)
        }
    }

    private func failure(_ error: any Error, _ request: Request, visitor: DashboardSessions.Visitor?) -> Response {
        // A refusal (below 500) is the visitor's to read, not the server's failure.
        if ((error as? any RenderableError)?.status ?? 500) >= 500 {
            logger.error("dashboard page failed", ["error": "\(error)", "request.id": request.requestID])
        }
        return errorPage(error, visitor: visitor)
    }

    func errorPage(_ error: any Error, visitor: DashboardSessions.Visitor?) -> Response {
        let status: Int
        let message: String
        if let error = error as? StorageError {
            let unavailable = error.code == .unavailable || error.code == .timeout
            status = unavailable ? 503 : 500
            message = unavailable ? "The database is not answering; try again in a moment." : "Something went wrong on the server; it has been logged."
        } else if let error = error as? any RenderableError, error.status < 500 {
            // A refusal (an operation's, or the request's own): it says what was wrong.
            status = error.status
            message = error.errorMessage
        } else {
            status = 500
            message = "Something went wrong on the server; it has been logged."
        }
        return .html(ErrorPage(status: status, message: message, visitor: visitor).render(), status: status)
    }

    /// A 303 to `location` (after a form: the browser GETs the result).
    static func redirect(_ location: String) -> Response {
        Response(status: 303, headers: ["Location": location, "Cache-Control": "no-store"], body: [])
    }

    /// The notice a `?notice=` names.
    static func notice(_ request: Request) -> DashboardLayout.Notice? {
        guard var text = request.query["notice"].flatMap({ notices[$0] }) else { return nil }
        if request.query["notice"] == "imported", let count = request.query["count"].flatMap(Int.init) {
            text = "\(DashboardLayout.count(count)) \(count == 1 ? "ticket" : "tickets") issued."
        }
        return DashboardLayout.Notice(text: text)
    }

    // MARK: Sign-in

    func signInPage(_ request: Request, error: String? = nil, status: Int = 200) -> Response {
        let challenge = sessions.signInChallenge()
        let notice = error.map { DashboardLayout.Notice(text: $0, isError: true) } ?? Self.notice(request)
        var headers: HTTPHeaders = [:]
        headers.add(name: "Set-Cookie", value: challenge.cookie)
        return .html(SignInPage(challenge: challenge.value, notice: notice).render(), status: status, headers: headers)
    }

    func signIn(_ request: Request) -> Response {
        do {
            let form = try request.formFields()
            guard sessions.signInChallengeMatches(form, request) else {
                return signInPage(request, error: Self.staleSignInForm, status: 403)
            }
            guard let (cookie, role) = try sessions.signIn(token: form["token"] ?? "") else {
                logger.info("dashboard sign-in refused", ["request.id": request.requestID])
                return signInPage(request, error: "That token is not valid (or it is revoked).", status: 401)
            }
            // Door staff land on the scanner page, the only one a scanner token may use.
            var response = Self.redirect(role == .scanner ? "/admin/scan" : "/admin/")
            response.headers.add(name: "Set-Cookie", value: cookie)
            response.headers.add(name: "Set-Cookie", value: sessions.clearSignInCookie)
            logger.info("dashboard signed in", ["request.id": request.requestID])
            return response
        } catch {
            return errorPage(error, visitor: nil)
        }
    }
}

import Foundation
import HTTPServer
import PassImages
import Storage

/// The scanner page for door staff (`/admin/scan`), and the JSON calls its script makes with the
/// session cookie: one scan, a batch of scans kept while the server was unreachable, the event's
/// running count, and reading the codes in a camera frame (`FrameDecoding`). They read and answer the admin API's JSON and call the same door
/// (`CheckInDesk`), so a scan from the page is the same scan as one from a hardware scanner with a
/// bearer token; only who is asking is found differently: the session (of a scanner or admin token; a viewer's is refused with 403), and
/// every `POST` must carry the session's CSRF token in the `X-CSRF-Token` header (403 without).
/// Errors are JSON, as the admin API's are.
extension DashboardController {
    /// Most events the page offers to choose from.
    static let scannerEventChoices = 50

    func registerScanner(in router: inout Router) {
        router.get("/admin/scan", maxBodySize: Self.pageBodyLimit, query: ["event"]) { request in scannerPage(request) }
        router.post("/admin/scan/checkins", preflight: scanPreflight()) { request in
            let visitor = try scanVisitor(request, posting: true)
            let scan = try ScanInput.single(request)
            return ScanAnswer(try desk(for: visitor).scan(scan, scanner: visitor.tokenName, requestID: request.requestID)).response
        }
        router.post("/admin/scan/checkins:batch", preflight: scanPreflight()) { request in
            let visitor = try scanVisitor(request, posting: true)
            let scans = try ScanInput.batch(request)
            return ScanAnswer.batch(try desk(for: visitor).scan(batch: scans, scanner: visitor.tokenName, requestID: request.requestID))
        }
        // A camera frame (PNG or JPEG) from a browser without `BarcodeDetector`: the codes in it,
        // which the page then checks in with the call above. Refused from the headers like the
        // others, so no one without a scanner's session can make the server hold a frame.
        router.post("/admin/scan/decode", maxBodySize: FrameReader.maximumFileBytes, preflight: scanPreflight()) { request in
            _ = try scanVisitor(request, posting: true)
            return try frames.answer(request.body)
        }
        router.get("/admin/scan/events/:eventId/checkins", maxBodySize: Self.pageBodyLimit) { request in
            let visitor = try scanVisitor(request, posting: false)
            if let only = visitor.eventID, request.parameters["eventId"] != only {
                throw HTTPError(status: 403, code: "forbidden", message: "This phone is signed in for another event's door.")
            }
            let count = try admin.desk.count(try admin.existingEvent(request))
            var response = Response.json(CheckInCountBody(count), encoder: .api)
            response.headers.replace(name: "Cache-Control", value: "private, no-store")
            return response
        }
    }

    /// The door a visitor scans at: a door-staff phone's checks in its event's tickets only.
    func desk(for visitor: DashboardSessions.Visitor) -> CheckInDesk {
        var desk = admin.desk
        desk.onlyEvent = visitor.eventID
        return desk
    }

    /// The visitor of a JSON call of the scanner page: 401 without a session, 403 for a role that
    /// may not check in (a viewer) and, when `posting`, 403 without the session's CSRF header.
    func scanVisitor(_ request: Request, posting: Bool) throws -> DashboardSessions.Visitor {
        guard let visitor = try sessions.visitor(request, allowingScanner: true) else {
            throw HTTPError(status: 401, code: "signed_out", message: "You are not signed in (or your session has expired). Sign in again.")
        }
        guard visitor.role.permits(.scanner) else { throw AdminAuthentication.forbidden(visitor.role, needs: .scanner) }
        if posting { try sessions.checkCSRF(sent: request.headers[DashboardSessions.csrfHeader], visitor) }
        return visitor
    }

    /// `GET /admin/scan`: the page. The event to count is chosen on the page (`?event=` chooses
    /// it; the script remembers the last one); a viewer sees the page without a scan input.
    func scannerPage(_ request: Request) -> Response {
        let visitor: DashboardSessions.Visitor?
        do {
            visitor = try sessions.visitor(request, allowingScanner: true)
        } catch {
            return errorPage(error, visitor: nil)
        }
        guard let visitor else { return Self.redirect("/admin/") }
        return render(request, visitor: visitor) {
            if let only = visitor.eventID {
                // A door-staff phone's page has its one event, fixed.
                let event = try organizer.event(id: only)
                return .html(ScannerPage(events: [event], selected: event.id, visitor: visitor, notice: nil).render())
            }
            let now = admin.now()
            var events = try store.withSession(.read) { session in
                // Events that have not ended more than a day ago, soonest last (newest first).
                try session.events.events(
                    matching: EventFilter(startsFrom: now.addingTimeInterval(-3 * 86_400), archived: false), limit: Self.scannerEventChoices
                )
            }
            var notice: DashboardLayout.Notice?
            let requested = request.query["event"].flatMap { AdminIdentifiers.isPlausible($0, lengths: 1...64) ? $0 : nil }
            if let requested, !events.contains(where: { $0.id == requested }) {
                if let event = try store.withSession(.read, { try $0.events.event(id: requested) }) {
                    events.insert(event, at: 0)
                } else {
                    notice = DashboardLayout.Notice(text: "No event has the id in this link; choose the event below.", isError: true)
                }
            }
            let selected = requested.flatMap { id in events.contains { $0.id == id } ? id : nil }
            return .html(ScannerPage(events: events, selected: selected, visitor: visitor, notice: notice).render())
        }
    }
}

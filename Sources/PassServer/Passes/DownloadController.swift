import Foundation
import HTTPServer
import PassBundle
import Storage

/// `GET /download/{downloadToken}`: the attendee's link.
///
/// Browsers, which prefer HTML, get the ticket page (`AttendeePage`) with an "Add to Apple
/// Wallet" button; Wallet, `curl` and anything else that does not rank `text/html` above the pass
/// get the current signed pass, as does `?format=pkpass` (the button's link).
///
/// Pages are cached like signed passes, by pass and revision (and language, and whether the event
/// has ended): every change to a ticket or its event bumps the pass's revision, so a cached page is
/// never served for a changed ticket; a page costs the lookups of the pass and its event. The page holds no token (its button
/// links `?format=pkpass` relative to itself), so rotating a link leaves it valid; with Google
/// Wallet on, its "Add to Google Wallet" button links `{token}/google-wallet` (the route below the
/// link), so those pages are cached per link, and per kind of phone (Android gets that button first).
///
/// `GET /download/{downloadToken}/google-wallet` redirects to Google's save link, made then: the
/// pages and emails carry only this route, never the signed token.
struct DownloadController: Sendable {
    let store: any Store
    let passes: PassService
    /// The save links when Google Wallet is on; nil: the route answers 404 and pages have no Google button.
    var google: GoogleSaveLinks? = nil
    /// Rendered pages; a page is a few kilobytes.
    let pages = BundleCache<HTML.Encoded>(maxBytes: 32 << 20)
    /// Whether an event has ended (the page then says so) is decided at this time.
    var now: @Sendable () -> Date = Date.init

    /// The representations of the link.
    enum Format: Equatable {
        case pkpass, html

        /// `?format=` when given (`pkpass` or `html`), else the one `Accept` ranks higher;
        /// a tie is the pass, so `*/*` and no `Accept` at all keep getting the file.
        init(request: Request) throws {
            if let format = request.query["format"] {
                switch format {
                case "pkpass": self = .pkpass
                case "html": self = .html
                default:
                    throw HTTPError(status: 400, code: "invalid_format", message: "format must be pkpass or html, not \(HTTPError.quoting(format)).")
                }
                return
            }
            let accept = request.headers["Accept"]
            self = ContentNegotiation.prefers("text/html", over: PassBundle.contentType, accept: accept) ? .html : .pkpass
        }
    }

    /// Besides the security headers: the answer depends on both headers, and a ticket's page is
    /// nothing for a search engine to keep.
    static let pageHeaders: HTTPHeaders = ["Vary": "Accept, Accept-Language", "X-Robots-Tag": "noindex, nofollow"]

    func register(in router: inout Router) {
        router.get("/download/:downloadToken") { try self.download($0) }
        router.get("/download/:downloadToken/google-wallet") { try self.googleWallet($0) }
    }

    func download(_ request: Request) throws -> Response {
        let format = try Format(request: request)
        guard let (token, pass) = try ticket(request, page: format == .html) else {
            return Self.notFoundPage(request)
        }
        switch format {
        case .pkpass: return try passFile(pass)
        case .html: return try page(pass, token: token, request: request)
        }
    }

    /// The link's token and its pass; nil: no ticket there (and the caller answers with a page),
    /// or a thrown 404 when `page` is false.
    private func ticket(_ request: Request, page: Bool) throws -> (token: String, pass: StoredPass)? {
        guard let token = request.parameters["downloadToken"], AdminIdentifiers.isPlausible(token, lengths: 20...128),
            let pass = try store.withSession(.read, { try $0.passes.pass(downloadTokenHash: TokenVault.hash(token)) })
        else {
            guard page else { throw HTTPError.notFound("No ticket at this link.") }
            return nil
        }
        return (token, pass)
    }

    private static func notFoundPage(_ request: Request) -> Response {
        let language = AttendeePage.language(acceptLanguage: request.headers["Accept-Language"])
        return .html(AttendeePage.notFound(language: language), status: 404, headers: pageHeaders)
    }

    /// How long an attendee is asked to wait for a ticket Google does not have yet.
    static let googleRetryAfter = 30

    /// `GET /download/{downloadToken}/google-wallet`: a 302 to Google's save link for the ticket's
    /// object once it is at Google (a cancelled ticket's object is inactive there, as its Apple
    /// pass is voided); before that a 503 with `Retry-After`, as a small page for a browser.
    func googleWallet(_ request: Request) throws -> Response {
        guard let google else { throw HTTPError.notFound("Google Wallet is not offered here.") }
        let wantsPage = ContentNegotiation.prefers("text/html", over: "application/json", accept: request.headers["Accept"])
        guard let (_, pass) = try ticket(request, page: wantsPage) else { return Self.notFoundPage(request) }
        let object = try store.withSession(.read) { try $0.google.googleObjects(passIDs: [pass.id]) }.first
        guard object?.insertedAt != nil else {
            let retry: HTTPHeaders = ["Retry-After": String(Self.googleRetryAfter), "Cache-Control": "no-store", "Vary": "Accept, Accept-Language"]
            guard wantsPage else {
                throw HTTPError(
                    status: 503, code: "google_wallet_pending",
                    message: "This ticket is on its way to Google Wallet: try again in \(Self.googleRetryAfter) seconds.", headers: retry
                )
            }
            let language = AttendeePage.language(acceptLanguage: request.headers["Accept-Language"])
            return .html(AttendeePage.googlePending(language: language), status: 503, headers: Self.pageHeaders.merging(retry))
        }
        let link: String
        do {
            link = try google.link(serial: pass.serialNumber, now: now())
        } catch {
            throw HTTPError(status: 503, code: "google_wallet_unavailable", message: "The Google Wallet link cannot be made now.")
        }
        return Response(status: 302, headers: ["Location": link, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"])
    }

    private func passFile(_ pass: StoredPass) throws -> Response {
        let bundle = try passes.bundle(for: pass) {
            guard let eventID = pass.eventID else { return nil }
            return try store.withSession(.read) { try $0.events.event(id: eventID) }
        }
        return Response(
            status: 200,
            headers: [
                "Content-Type": PassBundle.contentType,
                "Content-Disposition": "attachment; filename=ticket.pkpass",
                "Last-Modified": HTTPDate.format(epochSeconds: pass.modifiedAt),
                "Cache-Control": "private, no-store",
                "Vary": "Accept",
            ],
            parts: bundle.runs
        )
    }

    private func page(_ pass: StoredPass, token: String, request: Request) throws -> Response {
        let language = AttendeePage.language(acceptLanguage: request.headers["Accept-Language"])
        let android = google != nil && AttendeePage.isAndroid(userAgent: request.headers["User-Agent"])
        guard let eventID = pass.eventID, let event = try store.withSession(.read, { try $0.events.event(id: eventID) }) else {
            throw PassServiceError("pass \(pass.serialNumber) has no event")
        }
        // The page changes when the event ends, with no new revision: one variant before, one after.
        let ended = DoorHours.end(startsAt: event.startsAt, endsAt: event.endsAt) < now()
        let key = BundleKey(
            passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, revision: pass.revision,
            variant: language + (ended ? "-ended" : "") + (google == nil ? "" : (android ? "-android-" : "-") + token)
        )
        let page = try pages.bundle(for: key) {
            let barcode = try passes.barcode(for: pass, event: event)
            let ticket = AttendeePage.Ticket(
                organizationName: passes.organizationName, eventName: event.name, venue: event.venue, startsAt: event.startsAt,
                timeZone: event.timeZone, attendeeName: PassService.shownName(pass), seat: pass.seat, cancelled: pass.status == .cancelled,
                cancellationReason: pass.cancellationReason, serialNumber: pass.serialNumber.rawValue,
                barcode: barcode.map { ($0.messageBytes, $0.altText) }, passURL: "?format=pkpass", look: try? look(pass, event: event),
                ended: ended, googleWalletURL: google == nil ? nil : token + "/google-wallet", android: android
            )
            return AttendeePage.render(ticket, language: language).encoded
        }
        return .html(page, headers: google == nil ? Self.pageHeaders : Self.pageHeaders.merging(["Vary": "Accept, Accept-Language, User-Agent"]))
    }

    /// The page's band: the colours and logo text of the pass as built now (the event's design
    /// over its template), and the design's logo (served by `/images/{id}`) or the template's.
    private func look(_ pass: StoredPass, event: Event) throws -> AttendeePage.Look {
        try Self.look(pass, event: event, passes: passes)
    }

    /// The band of a page showing `pass` (the ticket page's, the order page's).
    static func look(_ pass: StoredPass, event: Event, passes: PassService) throws -> AttendeePage.Look {
        let definition = try passes.preview(pass, event: event).pass
        let foreground = definition.foregroundColor ?? "rgb(0, 0, 0)"
        var look = AttendeePage.Look(background: definition.backgroundColor ?? "rgb(255, 255, 255)", foreground: foreground, logoText: definition.logoText)
        if let id = try PassService.design(of: event).images[PassImageKind.logo.rawValue], let image = try passes.loadImages([id])[id] {
            look.logo = ("/images/\(id)?scale=2", image.width, image.height)
        } else if let template = try? passes.templates.template(named: event.template),
            let png = template.file(at: "logo@2x.png") ?? template.file(at: "logo.png"), let size = AttendeePage.Look.pngSize(png) {
            let scale = template.file(at: "logo@2x.png") != nil ? 2 : 1
            look.logo = ("data:image/png;base64," + Data(png).base64EncodedString(), size.width / scale, size.height / scale)
        }
        return look
    }
}

extension HTTPHeaders {
    /// These headers with each of `other`'s replacing any of its name.
    func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        var all = self
        for header in other { all.replace(name: header.name, value: header.value) }
        return all
    }
}

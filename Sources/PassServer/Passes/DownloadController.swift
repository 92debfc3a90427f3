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
/// links `?format=pkpass` relative to itself), so rotating a link leaves it valid.
struct DownloadController: Sendable {
    let store: any Store
    let passes: PassService
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
    }

    func download(_ request: Request) throws -> Response {
        let format = try Format(request: request)
        guard let token = request.parameters["downloadToken"], AdminIdentifiers.isPlausible(token, lengths: 20...128),
            let pass = try store.withSession(.read, { try $0.pass(downloadTokenHash: TokenVault.hash(token)) })
        else {
            guard format == .html else { throw HTTPError.notFound("No ticket at this link.") }
            let language = AttendeePage.language(acceptLanguage: request.headers["Accept-Language"])
            return .html(AttendeePage.notFound(language: language), status: 404, headers: Self.pageHeaders)
        }
        switch format {
        case .pkpass: return try passFile(pass)
        case .html: return try page(pass, request: request)
        }
    }

    private func passFile(_ pass: StoredPass) throws -> Response {
        let bundle = try passes.bundle(for: pass) {
            guard let eventID = pass.eventID else { return nil }
            return try store.withSession(.read) { try $0.event(id: eventID) }
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

    private func page(_ pass: StoredPass, request: Request) throws -> Response {
        let language = AttendeePage.language(acceptLanguage: request.headers["Accept-Language"])
        guard let eventID = pass.eventID, let event = try store.withSession(.read, { try $0.event(id: eventID) }) else {
            throw PassServiceError("pass \(pass.serialNumber) has no event")
        }
        // The page changes when the event ends, with no new revision: one variant before, one after.
        let ended = DoorHours.end(startsAt: event.startsAt, endsAt: event.endsAt) < now()
        let key = BundleKey(
            passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, revision: pass.revision,
            variant: language + (ended ? "-ended" : "")
        )
        let page = try pages.bundle(for: key) {
            let barcode = try passes.barcode(for: pass, event: event)
            let ticket = AttendeePage.Ticket(
                organizationName: passes.organizationName, eventName: event.name, venue: event.venue, startsAt: event.startsAt,
                timeZone: event.timeZone, attendeeName: PassService.shownName(pass), seat: pass.seat, cancelled: pass.status == .cancelled,
                cancellationReason: pass.cancellationReason, serialNumber: pass.serialNumber.rawValue,
                barcode: barcode.map { ($0.messageBytes, $0.altText) }, passURL: "?format=pkpass", look: try? look(pass, event: event),
                ended: ended
            )
            return AttendeePage.render(ticket, language: language).encoded
        }
        return .html(page, headers: Self.pageHeaders)
    }

    /// The page's band: the colours and logo text of the pass as built now (the event's design
    /// over its template), and the design's logo (served by `/images/{id}`) or the template's.
    private func look(_ pass: StoredPass, event: Event) throws -> AttendeePage.Look {
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

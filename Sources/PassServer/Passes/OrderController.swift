import Foundation
import HTTPServer
import PassBundle
import Storage

/// `GET /orders/{orderToken}`: the buyer's link of an order.
///
/// Browsers, which prefer HTML, get the order's page (`BuyerPage`): every ticket with its own
/// buttons and the "Add all" buttons. `?format=pkpasses` (those buttons' links), and anything that
/// does not rank `text/html` above the bundle, gets the order's active tickets as one `.pkpasses`
/// file: at most ten passes, so a larger order comes in near-equal parts, `&part=1`, `&part=2`…
/// (`PassesBundle.parts`); a cancelled ticket is in none. A link that leads to no order answers
/// like a download link that leads to no ticket: 404, a page for a browser, JSON otherwise.
///
/// Building a file reads the order, its tickets and its event in one read session, then signs
/// each pass that the bundle cache does not hold (`PassService.bundle`) with no database
/// connection held; signing is bounded by the signing meter like every download's.
struct OrderController: Sendable {
    let store: any Store
    let passes: PassService
    /// Google Wallet is on: each ticket gets an "Add to Google Wallet" button.
    var googleWallet = false
    var now: @Sendable () -> Date = Date.init

    enum Format: Equatable {
        case pkpasses, html

        /// `?format=` when given, else the one `Accept` ranks higher; a tie is the bundle.
        init(request: Request) throws {
            if let format = request.query["format"] {
                switch format {
                case "pkpasses": self = .pkpasses
                case "html": self = .html
                default:
                    throw HTTPError(status: 400, code: "invalid_format", message: "format must be pkpasses or html, not \(HTTPError.quoting(format)).")
                }
                return
            }
            self = ContentNegotiation.prefers("text/html", over: PassesBundle.mimeType, accept: request.headers["Accept"]) ? .html : .pkpasses
        }
    }

    func register(in router: inout Router) {
        router.get("/orders/:orderToken") { try self.order($0) }
    }

    /// What a request needs of the order, read in one session.
    private struct Snapshot {
        var order: StoredOrder
        var tickets: [StoredPass]
        var event: Event
    }

    func order(_ request: Request) throws -> Response {
        let format = try Format(request: request)
        guard let snapshot = try snapshot(request) else {
            guard format == .html else { throw HTTPError.notFound("No order at this link.") }
            let language = AttendeePage.language(acceptLanguage: request.headers["Accept-Language"])
            return .html(BuyerPage.notFound(language: language), status: 404, headers: DownloadController.pageHeaders)
        }
        switch format {
        case .pkpasses: return try bundle(snapshot, part: request.query["part"])
        case .html: return try page(snapshot, request: request)
        }
    }

    private func snapshot(_ request: Request) throws -> Snapshot? {
        guard let token = request.parameters["orderToken"], AdminIdentifiers.isPlausible(token, lengths: 20...128) else { return nil }
        return try store.withSession(.read) { session in
            guard let order = try session.orders.order(tokenHash: TokenVault.hash(token)), let event = try session.events.event(id: order.eventID) else {
                return nil
            }
            return Snapshot(order: order, tickets: try session.orders.passes(orderID: order.id), event: event)
        }
    }

    /// One `.pkpasses` file: `part` (from 1) of the active tickets' files; without `part`, the
    /// only one (an order of more than ten active tickets names the part it wants).
    private func bundle(_ snapshot: Snapshot, part raw: String?) throws -> Response {
        let parts = Organizer.parts(of: snapshot.tickets)
        guard !parts.isEmpty else {
            throw HTTPError(status: 409, code: "order_cancelled", message: "Every ticket of this order is cancelled: there is no pass to add.")
        }
        let index: Int
        if let raw {
            guard raw.utf8.count <= 4, raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(raw), (1...parts.count).contains(number) else {
                throw HTTPError(status: 400, code: "invalid_part", message: "part must be 1 to \(parts.count) for this order.")
            }
            index = number - 1
        } else {
            guard parts.count == 1 else {
                throw HTTPError(
                    status: 400, code: "part_required",
                    message: "This order's passes come in \(parts.count) files of at most \(PassesBundle.maxPasses): ask for part=1 to part=\(parts.count)."
                )
            }
            index = 0
        }
        let event = snapshot.event
        // Signed here, each under the meter, with no database connection held: the event is read.
        let files = try parts[index].map { pass in
            (name: pass.serialNumber.rawValue + ".pkpass", bundle: try passes.bundle(for: pass) { event }.bytes)
        }
        let name = parts.count == 1 ? "tickets.pkpasses" : "tickets-\(index + 1)-of-\(parts.count).pkpasses"
        return Response(
            status: 200,
            headers: [
                "Content-Type": PassesBundle.mimeType,
                "Content-Disposition": "attachment; filename=\(name)",
                "Cache-Control": "private, no-store",
                "Vary": "Accept",
            ],
            body: try PassesBundle.archive(files)
        )
    }

    private func page(_ snapshot: Snapshot, request: Request) throws -> Response {
        let language = AttendeePage.language(acceptLanguage: request.headers["Accept-Language"])
        let android = googleWallet && AttendeePage.isAndroid(userAgent: request.headers["User-Agent"])
        let event = snapshot.event
        let tickets = try snapshot.tickets.map { pass in
            let link = try passes.downloadURL(for: pass)
            // Relative to the site: the page and its links stay on this host.
            let path = URL(string: link)?.path ?? link
            return BuyerPage.Ticket(
                attendeeName: PassService.shownName(pass), seat: pass.seat, cancelled: pass.status == .cancelled, pageURL: path,
                passURL: path + "?format=pkpass", googleWalletURL: googleWallet ? path + "/google-wallet" : nil
            )
        }
        var parts: [(url: String, first: Int, count: Int)] = []
        var first = 1
        for (index, part) in Organizer.parts(of: snapshot.tickets).enumerated() {
            parts.append(("?format=pkpasses&part=\(index + 1)", first, part.count))
            first += part.count
        }
        let lead = snapshot.tickets.first { $0.status == .active } ?? snapshot.tickets.first
        let look = lead.flatMap { try? DownloadController.look($0, event: event, passes: passes) }
        let page = BuyerPage.Order(
            organizationName: passes.organizationName, eventName: event.name, venue: event.venue, startsAt: event.startsAt,
            timeZone: event.timeZone, externalID: snapshot.order.externalID, buyerName: snapshot.order.buyerName, tickets: tickets, parts: parts,
            look: look, ended: DoorHours.end(startsAt: event.startsAt, endsAt: event.endsAt) < now(), android: android
        )
        return .html(
            BuyerPage.render(page, language: language).encoded,
            headers: googleWallet ? DownloadController.pageHeaders.merging(["Vary": "Accept, Accept-Language, User-Agent"]) : DownloadController.pageHeaders
        )
    }
}

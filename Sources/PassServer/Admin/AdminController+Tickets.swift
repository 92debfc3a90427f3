import Foundation
import HTTPServer
import Storage

extension AdminController {
    /// `POST /admin/v1/events/{eventId}/tickets`: issues one ticket. With an `externalId` the
    /// event already has, the existing ticket is returned (200) instead of a new one (201), so a
    /// retried request never issues twice.
    func createTicket(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var input = try AdminInput(request, allowed: Self.newTicketFields)
        var draft = input.ticketDraft()
        let notify = input.boolean("notify").value ?? false
        draft.unreadable = input.unreadable
        let issued = try organizer.issueTicket(draft, of: event, notify: notify, requestID: request.requestID)
        return .json(try ticketBody(issued.ticket), status: issued.created ? 201 : 200, encoder: .api)
    }

    /// The fields of a new ticket, and `notify`.
    static let newTicketFields = TicketInput.fields.union(["notify"])

    /// `GET /admin/v1/events/{eventId}/tickets`: the event's tickets in issue order, filtered by
    /// `status`, `q` (a case-insensitive substring of the attendee's name or email, the serial
    /// number or the external id) and `updatedSince` (`lastModified` at or after it), paged with
    /// `cursor` and `limit`. A viewer's list has no download links.
    func listTickets(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var query = AdminInput.query(request)
        let links = try showsDownloadLinks(request)
        let list = try organizer.tickets(of: event, query.ticketQuery())
        let tickets = try list.tickets.map { try ticketBody($0, downloadURL: links) }
        return .json(TicketListBody(tickets: tickets, nextCursor: list.nextCursor), encoder: .api)
    }

    /// `GET /admin/v1/tickets/{serialNumber}`: the ticket with its devices, their state and the
    /// latest pushes to them; with its download link only for an admin token.
    func showTicket(_ request: Request) throws -> Response {
        let downloadURL = try showsDownloadLinks(request)
        let organizer = organizer
        // One connection for the lookup and the reads of the details (nested sessions reuse it).
        let details = try store.withSession(.read) { _ in try organizer.details(of: try existingTicket(request)) }
        return .json(try TicketBody(details, downloadURL: downloadURL ? try self.downloadURL(for: details.ticket.pass) : nil), encoder: .api)
    }

    /// `PATCH /admin/v1/tickets/{serialNumber}`: changes the fields the body names; 409 for a
    /// cancelled ticket.
    func updateTicket(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        var input = try AdminInput(request, allowed: TicketInput.fields)
        return .json(try ticketBody(try organizer.updateTicket(pass, input.ticketEdit(), requestID: request.requestID)), encoder: .api)
    }

    /// `POST /admin/v1/tickets/{serialNumber}/cancel`: cancels the ticket with the body's
    /// `reason`, if any. Idempotent.
    func cancelTicket(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        var input = try AdminInput(request, allowed: ["reason"], bodyRequired: false)
        let reason = input.string("reason").value
        let ticket = try organizer.cancelTicket(pass, reason: reason, unreadable: input.unreadable, requestID: request.requestID)
        return .json(try ticketBody(ticket), encoder: .api)
    }

    /// The ticket as the API shows it, with its download link unless `downloadURL` is false.
    func ticketBody(_ ticket: Ticket, downloadURL: Bool = true) throws -> TicketBody {
        TicketBody(ticket, downloadURL: downloadURL ? try self.downloadURL(for: ticket.pass) : nil)
    }
}

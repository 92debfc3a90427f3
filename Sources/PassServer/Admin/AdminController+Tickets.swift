import PassIdentifiers
import Foundation
import HTTPServer
import Storage

extension AdminController {
    /// Issues one ticket. With an `externalId` the event already has, the existing ticket is
    /// returned (200) instead of a new one (201), so a retried request never issues twice.
    func createTicket(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var input = try AdminInput(request, allowed: Self.newTicketFields)
        let (body, created) = try createTicket(event, &input, requestID: request.requestID)
        return .json(body, status: created ? 201 : 200, encoder: .api)
    }

    /// The fields of a new ticket, and `notify`.
    static let newTicketFields = TicketInput.fields.union(["notify"])

    /// Issues one ticket of `event` from `input` (read with `allowed: newTicketFields`); whether
    /// it is new (an `externalId` the event has returns that ticket).
    func createTicket(_ event: Event, _ input: inout AdminInput, requestID: String) throws -> (ticket: TicketBody, created: Bool) {
        let ticket = TicketInput.read(&input, declared: templateFields(of: event))
        let notify = input.boolean("notify").value ?? false
        if notify, ticket != nil, ticket?.attendeeEmail == nil { input.problem("notify", "needs attendeeEmail") }
        try input.validate()
        guard let ticket else { throw HTTPError.badRequest("attendeeName is required.", code: "invalid_fields") }
        if notify {
            try requireEmail()
            try requireEmailTexts(template: event.template)
        }
        guard let passType = passes.passType else { throw HTTPError.internalError }
        let new = try newPass(ticket, event: event, passType: passType)
        let imported = try store.transaction { session in
            // The import path locks the event, so two requests with one external id issue one ticket.
            let imported = ticket.externalID == nil
                ? ImportedPass(pass: try session.insertPass(new, now: now()), created: true)
                : try session.importPasses([new], eventID: event.id, now: now())[0]
            if imported.created { try requireBuildable { try passes.validate(imported.pass, event: event) } }
            // The email is queued with the ticket, so a ticket is never issued without the email asked for.
            if imported.created && notify { try session.enqueueEmails(passIDs: [imported.pass.id], now: now()) }
            return imported
        }
        let pass = imported.pass
        if imported.created {
            logger.info("ticket issued", [
                "event.id": event.id, "pass.serial": pass.serialNumber.rawValue, "notify": "\(notify)", "request.id": requestID,
            ])
            if notify { mail.queued() }
        }
        return (try ticketBody(pass), imported.created)
    }

    /// The event's tickets in issue order, filtered by `status`, `q` (a case-insensitive
    /// substring of the attendee's name or email, the serial number or the external id) and
    /// `updatedSince` (`lastModified` at or after it), paged with `cursor` and `limit`.
    func listTickets(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var query = AdminInput.query(request)
        return .json(try ticketList(event, &query, downloadURLs: try showsDownloadLinks(request)), encoder: .api)
    }

    /// One page of the event's tickets as `query` (`status`, `q`, `updatedSince`, `cursor`, `limit`) asks;
    /// `downloadURLs: false` leaves out each ticket's download link (a token derived per ticket),
    /// which the dashboard's table does not show and a viewer may not see.
    func ticketList(_ event: Event, _ query: inout AdminInput, downloadURLs: Bool) throws -> TicketPage {
        var filter = PassFilter()
        switch query.choice("status", ["active", "cancelled"]) {
        case "active": filter.status = .active
        case "cancelled": filter.status = .cancelled
        default: break
        }
        filter.search = query.text("q", maxLength: 200).value
        filter.modifiedSince = query.instant("updatedSince")
        let cursor = query.decimal("cursor", maxDigits: 18, problem: "must be a cursor from a previous page") ?? 0
        let limit = query.integer("limit", in: 1...500, default: 50)
        try query.validate()
        let page = try store.withSession(.read) { session in
            try session.passes(eventID: event.id, matching: filter, after: cursor, limit: limit + 1)
        }
        let shown = page.prefix(limit)
        let next = page.count > limit ? shown.last.map { String($0.id) } : nil
        return TicketPage(tickets: try ticketBodies(Array(shown), downloadURLs: downloadURLs), nextCursor: next)
    }

    func showTicket(_ request: Request) throws -> Response {
        let downloadURL = try showsDownloadLinks(request)
        // One connection for the lookup and the three reads of the details (nested sessions reuse it).
        let details = try store.withSession(.read) { _ in try ticketDetails(try existingTicket(request), downloadURL: downloadURL) }
        return .json(details, encoder: .api)
    }

    /// The ticket with its devices, their state and the latest pushes to them; with its download
    /// link only if `downloadURL` (not for a viewer).
    func ticketDetails(_ pass: StoredPass, downloadURL: Bool) throws -> TicketBody {
        var body = try ticketBodies([pass], downloadURLs: downloadURL)[0]
        body.servedRevision = pass.servedRevision
        body.servedAt = pass.servedAt.map { ISODate.format($0) }
        try store.withSession(.read) { session in
            let devices = try session.registeredDevices(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber)
            body.registeredDevices = devices.count
            body.devices = try devices.map(DeviceBody.init)
            let tokens = try session.pushTokens(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber)
            body.latestPushes = try session.latestPushes(tokenHashes: tokens.map(PushDispatcher.tokenHash), limit: 20).map(PushBody.init)
            body.prunedRegistrations = try session.recentPrunes(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber)
                .map(PruneBody.init)
        }
        return body
    }

    func updateTicket(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        var input = try AdminInput(request, allowed: TicketInput.fields)
        return .json(try updateTicket(pass, &input, requestID: request.requestID), encoder: .api)
    }

    /// Changes the fields `input` names (read with `allowed: TicketInput.fields`); 409 for a
    /// cancelled ticket.
    func updateTicket(_ pass: StoredPass, _ input: inout AdminInput, requestID: String) throws -> TicketBody {
        var change = PassChange()
        change.attendeeName = input.text("attendeeName").value
        change.seat = input.text("seat", maxLength: 64, nullable: true).change
        change.attendeeEmail = input.email("attendeeEmail", nullable: true).change
        change.externalID = input.text("externalId", maxLength: TicketInput.externalIDMaxLength, nullable: true).change
        change.language = input.language("language", nullable: true).change
        if input.isPresent("extra") {
            let event = try pass.eventID.flatMap { id in try store.withSession(.read) { try $0.event(id: id) } }
            change.extra = input.extras(declared: event.map(templateFields(of:)) ?? [], creating: false)
        }
        try input.validate()
        return try apply(to: pass, requestID: requestID) { current in
            guard current.status == .active else {
                throw HTTPError(status: 409, code: "ticket_cancelled", message: "A cancelled ticket cannot be changed.")
            }
            return change
        }
    }

    func cancelTicket(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        var input = try AdminInput(request, allowed: ["reason"], bodyRequired: false)
        return .json(try cancelTicket(pass, &input, requestID: request.requestID), encoder: .api)
    }

    /// Cancels the ticket with the `reason` of `input`, if any. Idempotent.
    func cancelTicket(_ pass: StoredPass, _ input: inout AdminInput, requestID: String) throws -> TicketBody {
        let reason = input.text("reason", maxLength: 500).value
        try input.validate()
        return try apply(to: pass, requestID: requestID) { current in
            // Cancelling twice changes nothing: no new revision, no push.
            current.status == .active ? PassChange(status: .cancelled, cancellationReason: .some(reason)) : PassChange()
        }
    }

    /// Applies the change `decide` makes of the ticket as it is inside the update's transaction,
    /// under its row lock, so that a status check there cannot be overtaken by a concurrent change
    /// (a rename and a cancel racing never both win). The changed pass is rendered and validated
    /// in the same transaction (`requireBuildable`).
    private func apply(to pass: StoredPass, requestID: String, _ decide: (StoredPass) throws -> PassChange) throws -> TicketBody {
        let update: PassUpdate
        do {
            update = try store.transaction { session in
                let update = try session.updatePass(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, now: now(), decide)
                if case .updated(let updated, _) = update, let eventID = updated.eventID, let event = try session.event(id: eventID) {
                    try requireBuildable { try passes.validate(updated, event: event) }
                }
                return update
            }
        } catch let error as StorageError where error.code == .conflict {
            // The only unique value a change can set is the external id.
            throw HTTPError(status: 409, code: "external_id_exists", message: "Another ticket of the event has this externalId.")
        }
        if case .updated(let updated, let enqueued) = update {
            logger.info("ticket changed", [
                "pass.serial": updated.serialNumber.rawValue, "revision": "\(updated.revision)", "pushes": "\(enqueued)", "request.id": requestID,
            ])
            if enqueued > 0 { pushesEnqueued() }
        }
        return try ticketBody(update.pass)
    }

    func existingTicket(_ request: Request) throws -> StoredPass {
        try existingTicket(serialNumber: request.parameters["serialNumber"])
    }

    /// The ticket with this serial number; 404 when there is none (or it is not a serial number).
    func existingTicket(serialNumber: String?) throws -> StoredPass {
        guard let serial = serialNumber.flatMap(SerialNumber.init), let passType = passes.passType,
            let pass = try store.withSession(.read, { try $0.pass(passTypeIdentifier: passType, serialNumber: serial) })
        else { throw HTTPError.notFound("No such ticket.") }
        return pass
    }
}

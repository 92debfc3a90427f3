import Foundation
import HTTPServer
import Storage

extension AdminController {
    private static let ticketFields: Set<String> = ["attendeeName", "attendeeEmail", "seat"]

    func createTicket(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var input = try AdminInput(request, allowed: Self.ticketFields)
        let name = input.requiredText("attendeeName")
        var email: String?
        if case .value(let value) = input.email("attendeeEmail") { email = value }
        var seat: String?
        if case .value(let value) = input.text("seat", maxLength: 64) { seat = value }
        try input.validate()
        guard let name, let passType = PassTypeIdentifier(passes.passTypeIdentifier) else {
            throw HTTPError.badRequest("attendeeName is required.", code: "invalid_fields")
        }
        // 120 random bits: unguessable, and valid in URLs and pass.json as is.
        guard let serial = SerialNumber(Crypto.randomToken(bytes: 15)) else { throw HTTPError.internalError }
        let downloadToken = try passes.vault.downloadToken(passType: passType, serial: serial)
        let pass = try store.transaction { session in
            let pass = try session.insertPass(
                NewPass(
                    passTypeIdentifier: passType.rawValue, serialNumber: serial.rawValue,
                    authenticationTokenHash: try TokenVault.hash(passes.vault.authenticationToken(passType: passType, serial: serial).rawValue),
                    downloadTokenHash: TokenVault.hash(downloadToken), eventID: event.id, attendeeName: name, attendeeEmail: email, seat: seat
                ),
                now: now()
            )
            try requireBuildable { try passes.validate(pass, event: event) }
            return pass
        }
        logger.info("ticket issued", ["event.id": event.id, "pass.serial": serial.rawValue, "request.id": request.requestID])
        return .json(TicketBody(pass, downloadURL: try downloadURL(for: pass)), status: 201, encoder: .api)
    }

    func listTickets(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var problems: [String] = []
        var cursor: Int64 = 0
        if let raw = request.query["cursor"] {
            if let value = Self.decimal(raw, maxDigits: 18) { cursor = value } else { problems.append("cursor: must be a cursor from a previous page") }
        }
        var limit = 50
        if let raw = request.query["limit"] {
            if let value = Self.decimal(raw, maxDigits: 3), (1...500).contains(value) { limit = Int(value) } else { problems.append("limit: must be 1 to 500") }
        }
        guard problems.isEmpty else { throw HTTPError.badRequest(problems.joined(separator: "; "), code: "invalid_fields") }
        let page = try store.passes(eventID: event.id, after: cursor, limit: limit + 1)
        let shown = page.prefix(limit)
        let next = page.count > limit ? shown.last.map { String($0.id) } : nil
        return .json(TicketPage(tickets: try shown.map { TicketBody($0, downloadURL: try downloadURL(for: $0)) }, nextCursor: next), encoder: .api)
    }

    /// 1 to `maxDigits` ASCII digits (no sign, no spaces: what the document's pattern allows).
    private static func decimal(_ text: String, maxDigits: Int) -> Int64? {
        guard (1...maxDigits).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }

    func showTicket(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        var body = TicketBody(pass, downloadURL: try downloadURL(for: pass))
        try store.withSession(.read) { session in
            body.registeredDevices = try session.registrationCount(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber)
            let tokens = try session.pushTokens(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber)
            body.latestPushes = try session.latestPushes(tokenHashes: tokens.map(PushDispatcher.tokenHash), limit: 20).map(PushBody.init)
            body.prunedRegistrations = try session.recentPrunes(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber)
                .map(PruneBody.init)
        }
        return .json(body, encoder: .api)
    }

    func updateTicket(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        var input = try AdminInput(request, allowed: Self.ticketFields)
        var change = PassChange()
        if case .value(let name) = input.text("attendeeName") { change.attendeeName = name }
        switch input.text("seat", maxLength: 64, nullable: true) {
        case .value(let seat): change.seat = .some(seat)
        case .null: change.seat = .some(nil)
        case .absent: break
        }
        switch input.email("attendeeEmail", nullable: true) {
        case .value(let email): change.attendeeEmail = .some(email)
        case .null: change.attendeeEmail = .some(nil)
        case .absent: break
        }
        try input.validate()
        return try apply(to: pass, request: request) { current in
            guard current.status == .active else {
                throw HTTPError(status: 409, code: "ticket_cancelled", message: "A cancelled ticket cannot be changed.")
            }
            return change
        }
    }

    func cancelTicket(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        var input = try AdminInput(request, allowed: ["reason"], bodyRequired: false)
        var reason: String?
        if case .value(let text) = input.text("reason", maxLength: 500) { reason = text }
        try input.validate()
        return try apply(to: pass, request: request) { current in
            // Cancelling twice changes nothing: no new revision, no push.
            current.status == .active ? PassChange(status: .voided, voidReason: .some(reason)) : PassChange()
        }
    }

    /// Applies the change `decide` makes of the ticket as it is inside the update's transaction,
    /// under its row lock, so that a status check there cannot be overtaken by a concurrent change
    /// (a rename and a cancel racing never both win). The changed pass is rendered and validated
    /// in the same transaction (`requireBuildable`).
    private func apply(to pass: StoredPass, request: Request, _ decide: (StoredPass) throws -> PassChange) throws -> Response {
        let update = try store.transaction { session in
            let update = try session.updatePass(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, now: now(), decide)
            if case .updated(let updated, _) = update, let eventID = updated.eventID, let event = try session.event(id: eventID) {
                try requireBuildable { try passes.validate(updated, event: event) }
            }
            return update
        }
        if case .updated(let updated, let enqueued) = update {
            logger.info("ticket changed", [
                "pass.serial": updated.serialNumber, "revision": "\(updated.revision)", "pushes": "\(enqueued)", "request.id": request.requestID,
            ])
            if enqueued > 0 { pushesEnqueued() }
        }
        return .json(TicketBody(update.pass, downloadURL: try downloadURL(for: update.pass)), encoder: .api)
    }

    func existingTicket(_ request: Request) throws -> StoredPass {
        guard let serial = request.parameters["serialNumber"].flatMap(SerialNumber.init),
            let pass = try store.pass(passTypeIdentifier: passes.passTypeIdentifier, serialNumber: serial.rawValue)
        else { throw HTTPError.notFound("No such ticket.") }
        return pass
    }
}

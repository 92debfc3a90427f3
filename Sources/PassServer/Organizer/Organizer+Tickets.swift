import PassIdentifiers
import Foundation
import PassBundle
import Storage

extension Organizer {
    /// Checks a new ticket of an event whose template declares `declared`: the ticket, or nil
    /// with every problem in `check`.
    func check(_ draft: TicketDraft, declared: [TemplateField], _ check: inout FieldCheck) -> NewTicket? {
        let name = check.requiredText("attendeeName", draft.attendeeName)
        let email = check.apply("attendeeEmail", draft.attendeeEmail, FieldRules.email)
        let seat = check.text("seat", draft.seat, maxLength: 64)
        let externalID = check.text("externalId", draft.externalID, maxLength: TicketDraft.externalIDMaxLength)
        let language = check.apply("language", draft.language, FieldRules.language)
        let extra = check.extras(draft.extra, declared: declared, creating: true).compactMapValues { $0 }
        guard let name, check.isValid else { return nil }
        return NewTicket(attendeeName: name, attendeeEmail: email, seat: seat, externalID: externalID, language: language, extra: extra)
    }

    /// Issues one ticket of `event`; `notify` queues its email with it. With an external id the
    /// event already has, that ticket is returned (`created` false), so a retried request never
    /// issues twice.
    func issueTicket(_ draft: TicketDraft, of event: Event, notify: Bool, requestID: String) throws -> IssuedTicket {
        try requireNotErased(event)
        var check = FieldCheck(reported: draft.unreadable, fields: TicketDraft.fields + ["notify"])
        let ticket = self.check(draft, declared: templateFields(of: event), &check)
        let notify = check.value("notify", notify) ?? false
        if notify, let ticket, ticket.attendeeEmail == nil { check.problem("notify", "needs attendeeEmail") }
        try check.validate()
        guard let ticket else { throw OrganizerError.invalid(check.allIssues) }
        if notify { try emailCheck(event.template, false) }
        let new = try newPass(ticket, event: event, passType: try passType())
        let imported = try store.transaction { session in
            // The import path locks the event, so two requests with one external id issue one ticket.
            let imported = ticket.externalID == nil
                ? ImportedPass(pass: try session.passes.insertPass(new, now: now()), created: true)
                : try session.passes.importPasses([new], eventID: event.id, now: now())[0]
            if imported.created { try requireBuildable { try passes.validate(imported.pass, event: event) } }
            // The email is queued with the ticket, so a ticket is never issued without the email asked for.
            if imported.created && notify { try session.mail.enqueueEmails(passIDs: [imported.pass.id], now: now()) }
            return imported
        }
        let pass = imported.pass
        if imported.created {
            logger.info("ticket issued", [
                "event.id": event.id, "pass.serial": pass.serialNumber.rawValue, "notify": "\(notify)", "request.id": requestID,
            ])
            if notify { mail.queued() }
        }
        return IssuedTicket(ticket: try self.ticket(pass), created: imported.created)
    }

    /// Changes the holder fields the edit names; `conflict` for a cancelled ticket.
    func updateTicket(_ pass: StoredPass, _ edit: TicketEdit, requestID: String) throws -> Ticket {
        var check = FieldCheck(reported: edit.unreadable, fields: TicketDraft.fields)
        var change = PassChange()
        change.attendeeName = check.text("attendeeName", edit.attendeeName)
        change.seat = check.change("seat", edit.seat) { FieldRules.text($0, maxLength: 64) }
        change.attendeeEmail = check.change("attendeeEmail", edit.attendeeEmail, FieldRules.email)
        change.externalID = check.change("externalId", edit.externalID) { FieldRules.text($0, maxLength: TicketDraft.externalIDMaxLength) }
        change.language = check.change("language", edit.language, FieldRules.language)
        if edit.extra != nil || check.wasReported("extra") {
            let declared = try event(of: pass).map(templateFields(of:)) ?? []
            change.extra = check.extras(edit.extra, declared: declared, creating: false)
        }
        try check.validate()
        return try apply(to: pass, requestID: requestID) { current in
            guard current.status == .active else {
                throw OrganizerError.conflict(code: "ticket_cancelled", message: "A cancelled ticket cannot be changed.")
            }
            return change
        }
    }

    /// Cancels the ticket, with a reason shown on the pass. Idempotent: cancelling twice changes
    /// nothing (no new revision, no push).
    func cancelTicket(_ pass: StoredPass, reason: String?, unreadable: [OrganizerError.Issue] = [], requestID: String) throws -> Ticket {
        var check = FieldCheck(reported: unreadable, fields: ["reason"])
        let reason = check.text("reason", reason, maxLength: 500)
        try check.validate()
        return try apply(to: pass, requestID: requestID) { current in
            current.status == .active ? PassChange(status: .cancelled, cancellationReason: .some(reason)) : PassChange()
        }
    }

    /// Gives the ticket a new download link; the previous one answers 404 from then on. The pass
    /// itself does not change, so no push is sent.
    func rotateDownloadLink(_ pass: StoredPass, requestID: String) throws -> Ticket {
        let (passType, serial) = (pass.passTypeIdentifier, pass.serialNumber)
        let vault = passes.vault
        let rotated = try store.withSession(.write) { session in
            try session.passes.rotateDownloadToken(passTypeIdentifier: passType, serialNumber: serial) { nonce in
                try TokenVault.hash(vault.downloadToken(passType: passType, serial: serial, nonce: nonce))
            }
        }
        guard let rotated else { throw OrganizerError.notFound("No such ticket.") }
        logger.info("download link rotated", ["pass.serial": rotated.serialNumber.rawValue, "request.id": requestID])
        return try ticket(rotated)
    }

    /// One page of the event's tickets as `query` asks.
    func tickets(of event: Event, _ query: TicketQuery) throws -> TicketList {
        var check = FieldCheck(reported: query.unreadable, fields: TicketQuery.fields)
        var filter = PassFilter()
        filter.status = check.value("status", query.status)
        filter.search = check.text("q", query.search)
        filter.modifiedSince = check.value("updatedSince", query.updatedSince)
        filter.checkedIn = check.value("checkedIn", query.checkedIn)
        filter.orderID = check.value("orderId", query.orderID)
        let cursor = check.value("cursor", query.cursor) ?? 0
        if cursor < 0 { check.problem("cursor", "must be a cursor from a previous page") }
        let limit = check.integer("limit", query.limit, in: 1...500) ?? 50
        try check.validate()
        let page = try store.withSession(.read) { session in
            try session.passes.passes(eventID: event.id, matching: filter, after: cursor, limit: limit + 1)
        }
        let shown = Array(page.prefix(limit))
        let next = page.count > limit ? shown.last.map { String($0.id) } : nil
        return TicketList(tickets: try tickets(shown), nextCursor: next)
    }

    /// The ticket with the phones holding it, their state and the latest pushes to them.
    func details(of pass: StoredPass) throws -> TicketDetails {
        // One connection for the reads (nested sessions reuse it).
        try store.withSession(.read) { session in
            let devices = try session.reach.registeredDevices(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber)
            let tokens = try session.registrations.pushTokens(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber)
            return TicketDetails(
                ticket: try ticket(pass), devices: devices,
                pushes: try session.outbox.latestPushes(tokenHashes: tokens.map(PushDispatcher.tokenHash), limit: 20),
                prunes: try session.registrations.recentPrunes(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber),
                undoneCheckIns: try session.checkIns.undoneCheckIns(passID: pass.id),
                googleWallet: googleWallet ? try session.google.googleWalletTicket(passID: pass.id) : nil, googleWalletEnabled: googleWallet
            )
        }
    }

    /// Applies the change `decide` makes of the ticket as it is inside the update's transaction,
    /// under its row lock, so that a status check there cannot be overtaken by a concurrent change
    /// (a rename and a cancel racing never both win). The changed pass is rendered and validated
    /// in the same transaction (`requireBuildable`).
    private func apply(to pass: StoredPass, requestID: String, _ decide: (StoredPass) throws -> PassChange) throws -> Ticket {
        let update: PassUpdate
        do {
            update = try store.transaction { session in
                let update = try session.passes.updatePass(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, now: now(), decide)
                if case .updated(let updated, _) = update, let eventID = updated.eventID, let event = try session.events.event(id: eventID) {
                    try requireBuildable { try passes.validate(updated, event: event) }
                }
                return update
            }
        } catch let error as StorageError where error.code == .conflict {
            // The only unique value a change can set is the external id.
            throw OrganizerError.conflict(code: "external_id_exists", message: "Another ticket of the event has this externalId.")
        }
        if case .updated(let updated, let enqueued) = update {
            logger.info("ticket changed", [
                "pass.serial": updated.serialNumber.rawValue, "revision": "\(updated.revision)", "pushes": "\(enqueued)", "request.id": requestID,
            ])
            if enqueued > 0 { pushesEnqueued() }
        }
        return try ticket(update.pass)
    }
}

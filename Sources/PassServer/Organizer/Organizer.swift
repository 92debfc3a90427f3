import PassIdentifiers
import Foundation
import Logging
import PassBundle
import Storage

/// The organizers' operations on events and tickets, as typed functions over typed values:
/// drafts in (`EventDraft`, `TicketDraft`, …), domain values out (`Event`, `Ticket`,
/// `EventDetails`). Every refusal is an `OrganizerError`; how it is shown is the transport's
/// business (the admin API's JSON error, the dashboard's form with the issues next to its fields).
struct Organizer: Sendable {
    let store: any Store
    let passes: PassService
    let logger: Logger
    /// Called after a change enqueued pushes (wakes the dispatcher).
    var pushesEnqueued: @Sendable () -> Void = {}
    /// Called after a job was created (wakes the job runner).
    var jobCreated: @Sendable () -> Void = {}
    /// Whether email is on, and whom to tell that emails were queued.
    var mail: MailAccess = .off
    /// Whether Google Wallet is on (its reach is shown beside Apple's).
    var googleWallet = false
    /// Announcements' pacing, the scheduler to wake, the counters.
    var scheduling = SchedulingAccess()
    var now: @Sendable () -> Date = Date.init
    /// Refuses (`conflict`) while tickets of a template cannot be emailed: email is off, or the
    /// template has no valid email texts (`orders`: nor order email texts). Checked before
    /// anything is issued with `notify`.
    let emailCheck: @Sendable (_ template: String?, _ orders: Bool) throws -> Void

    // MARK: Lookups

    /// The event with this id; `notFound` when there is none (or it is not an id) or it was
    /// deleted (its rows wait only for phones to fetch the voided passes).
    func event(id: String?) throws -> Event {
        guard let id, AdminIdentifiers.isPlausible(id), let event = try store.withSession(.read, { try $0.events.event(id: id) }),
            event.deletingAt == nil
        else {
            throw OrganizerError.notFound("No such event.")
        }
        return event
    }

    /// The ticket with this serial number; `notFound` when there is none (or it is not a serial number).
    func ticket(serialNumber: String?) throws -> StoredPass {
        guard let serial = serialNumber.flatMap(SerialNumber.init), let passType = passes.passType,
            let pass = try store.withSession(.read, { try $0.passes.pass(passTypeIdentifier: passType, serialNumber: serial) })
        else { throw OrganizerError.notFound("No such ticket.") }
        return pass
    }

    /// The event a ticket belongs to, if it still has one.
    func event(of pass: StoredPass) throws -> Event? {
        try pass.eventID.flatMap { id in try store.withSession(.read) { try $0.events.event(id: id) } }
    }

    /// The extra fields the event's template declares (none if it cannot be loaded).
    func templateFields(of event: Event) -> [TemplateField] {
        (try? passes.templates.template(named: event.template))?.fields ?? []
    }

    /// Whether a template of this name can be loaded.
    func hasTemplate(named name: String) -> Bool {
        AdminIdentifiers.isPlausible(name) && (try? passes.templates.template(named: name)) != nil
    }

    /// The names an event's template can take, sorted: the folders under the templates
    /// directory and the uploaded templates (`event-ticket` when there is none at all).
    var templateNames: [String] {
        let library = passes.templates
        let folders = library.fileTemplateNames
        let uploaded = ((try? store.withSession(.read) { try $0.templates.storedTemplateNames() }) ?? []).filter { !library.isFileTemplate($0) }
        let found = (folders + uploaded).sorted()
        return found.isEmpty ? ["event-ticket"] : found
    }

    // MARK: Passes that can be built

    /// Runs a pass validation (render and validate, no signing) inside the transaction of a
    /// change: a change after which a pass could not be built is refused (`invalid`, field
    /// `pass`) and rolled back, instead of being stored and failing every download of the pass
    /// afterwards.
    func requireBuildable(_ validation: () throws -> Void) throws {
        if let reason = try unbuildableReason(validation) {
            throw OrganizerError.invalid("pass", reason)
        }
    }

    /// Why the pass cannot be built, in words, or nil when `validation` passes; errors other than
    /// the bundle's and the pass service's are thrown.
    func unbuildableReason(_ validation: () throws -> Void) throws -> String? {
        do {
            try validation()
            return nil
        } catch let error as PassBundleError {
            let detail = error.issues.isEmpty ? error.message : error.issues.map(\.description).joined(separator: "; ")
            return "the pass cannot be built with this change (\(detail))"
        } catch let error as PassServiceError {
            return "the pass cannot be built with this change (\(error.description))"
        }
    }

    /// The pass type tickets are issued for; a server without one cannot issue any.
    func passType() throws -> PassTypeIdentifier {
        guard let passType = passes.passType else { throw OrganizerFault.noPassType }
        return passType
    }

    /// A new pass for `ticket`: a random serial number and the tokens derived from it.
    func newPass(_ ticket: NewTicket, event: Event, passType: PassTypeIdentifier) throws -> NewPass {
        // 120 random bits: unguessable, and valid in URLs and pass.json as is.
        guard let serial = SerialNumber(Crypto.randomToken(bytes: 15)) else { throw OrganizerFault.noSerialNumber }
        return NewPass(
            passTypeIdentifier: passType, serialNumber: serial,
            authenticationTokenHash: try TokenVault.hash(passes.vault.authenticationToken(passType: passType, serial: serial).rawValue),
            downloadTokenHash: try TokenVault.hash(passes.vault.downloadToken(passType: passType, serial: serial)),
            eventID: event.id, attendeeName: ticket.attendeeName, attendeeEmail: ticket.attendeeEmail, seat: ticket.seat,
            externalID: ticket.externalID, extra: ticket.extra, language: ticket.language
        )
    }

    /// Tickets with their email states and check-ins, read in two statements.
    func tickets(_ passes: [StoredPass]) throws -> [Ticket] {
        let ids = passes.map(\.id)
        let (emails, checkIns) = try store.withSession(.read) { (try $0.mail.ticketEmails(passIDs: ids), try $0.checkIns.checkIns(passIDs: ids)) }
        return passes.map { Ticket(pass: $0, email: emails[$0.id], checkIn: $0.checkedInAt == nil ? nil : checkIns[$0.id]) }
    }

    func ticket(_ pass: StoredPass) throws -> Ticket {
        try tickets([pass])[0]
    }
}

/// A fault of the server, not a refusal: answered as any unexpected error (a logged 500).
enum OrganizerFault: Error {
    /// The server was started without a pass type certificate.
    case noPassType
    /// The random serial number was not one (cannot happen with base64url tokens).
    case noSerialNumber
}

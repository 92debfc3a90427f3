import PassIdentifiers
import Foundation
import HTTPServer
import Logging
import PassBundle
import Storage

/// The organizers' API under `/admin/v1`: events, tickets, jobs. Every route needs
/// `Authorization: Bearer <admin token>` of a role that permits it (`AdminController.routes`).
struct AdminController: Sendable {
    let store: any Store
    let passes: PassService
    let logger: Logger
    /// Called after a change enqueued pushes (wakes the dispatcher).
    let pushesEnqueued: @Sendable () -> Void
    /// Called after a job was created (wakes the job runner).
    let jobCreated: @Sendable () -> Void
    /// Whether email is on, and whom to tell that emails were queued.
    var mail: MailAccess = .off
    /// Whether Google Wallet is on (its reach is shown beside Apple's).
    var googleWallet = false
    var now: @Sendable () -> Date = Date.init
    /// Scans answered, by result (shared with `/metrics`).
    var checkIns = CheckInMetrics()
    /// Writes the reach marks this process's phones left waiting (`ReachLedger.settle`): every
    /// read route calls it first, so what it shows includes them.
    var settleReach: @Sendable () -> Void = {}
    /// Names and roles of the tokens calling: who scanned, for the check-in records, and whether
    /// a reader may see download links (`showsDownloadLinks`).
    let tokenNames = TokenNames()
    /// Bounds the warning lines of forged codes and bare serials, per scanner.
    let scanWarnings = ScanWarnings()
    /// Until when an event's tickets check in (`CHECKIN_GRACE`).
    var doorHours = DoorHours()
    /// Where webhooks may go (WEBHOOK_ALLOW_PRIVATE_TARGETS), and whom to tell that deliveries were queued.
    var webhookTargets = WebhookTargets(allowPrivate: false)
    var webhooksQueued: @Sendable () -> Void = {}
    /// Announcements' pacing, the scheduler to wake, the counters.
    var scheduling = SchedulingAccess()

    /// Whether the caller of a read route may see the tickets' download links: an admin token's
    /// caller may, a viewer's may not. A link is the attendee's pass, barcode included: whoever
    /// holds it can show the ticket at the door, so read-only tokens (a box-office screen, a
    /// reporting script) never get one.
    func showsDownloadLinks(_ request: Request) throws -> Bool {
        try tokenNames.role(of: request, accepted: .viewer, store: store) == .admin
    }

    func showJob(_ request: Request) throws -> Response {
        .json(try jobDetails(id: request.parameters["jobId"]), encoder: .api)
    }

    /// The job with its progress and reach (an email job: its emails' states); 404 when there is none.
    func jobDetails(id: String?) throws -> JobBody {
        let progress = try organizer.job(id: id)
        var body = JobBody(progress.job, reach: progress.reach.map(ReachBody.init))
        body.emails = progress.emails.map(EmailCountsBody.init)
        return body
    }

    /// Scanner access for door staff, over this controller's store and clock.
    var doorStaff: DoorStaff { DoorStaff(store: store, now: now, hours: doorHours) }

    /// The webhook endpoints, over this controller's store and clock.
    var webhooks: WebhookEndpoints {
        WebhookEndpoints(store: store, vault: passes.vault, targets: webhookTargets, googleWallet: googleWallet, queued: webhooksQueued, now: now)
    }

    // MARK: Helpers

    /// The organizers' operations this API is the JSON transport of.
    var organizer: Organizer {
        let mailing = mailing
        return Organizer(
            store: store, passes: passes, logger: logger, pushesEnqueued: pushesEnqueued, jobCreated: jobCreated, mail: mail, googleWallet: googleWallet,
            scheduling: scheduling, now: now, emailCheck: { template, orders in try mailing.require(template: template, orders: orders) }
        )
    }

    func existingEvent(_ request: Request) throws -> Event {
        try existingEvent(id: request.parameters["eventId"])
    }

    /// The event with this id; 404 when there is none.
    func existingEvent(id: String?) throws -> Event {
        try organizer.event(id: id)
    }

    func existingTicket(_ request: Request) throws -> StoredPass {
        try organizer.ticket(serialNumber: request.parameters["serialNumber"])
    }

    /// The extra fields the event's template declares (none if it cannot be loaded).
    func templateFields(of event: Event) -> [TemplateField] {
        organizer.templateFields(of: event)
    }

    /// `PUBLIC_URL/download/{token}` for the pass's current link.
    func downloadURL(for pass: StoredPass) throws -> String {
        try passes.downloadURL(for: pass)
    }
}

/// Shapes of ids the admin API (and download links) accept before asking the database: the
/// base64url alphabet, as openapi.yaml states; event and job ids are at most 64 characters, link
/// tokens 20 to 128 (a real one is 43).
enum AdminIdentifiers {
    static func isPlausible(_ id: String, lengths: ClosedRange<Int> = 1...64) -> Bool {
        lengths.contains(id.utf8.count) && id.utf8.allSatisfy(IdentifierBytes.isBase64URL)
    }
}

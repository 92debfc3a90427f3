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
        guard let id, AdminIdentifiers.isPlausible(id) else { throw HTTPError.notFound("No such job.") }
        let (job, reach, emails) = try store.withSession(.read) { session -> (Job?, Reach?, EmailCounts?) in
            guard let job = try session.job(id: id) else { return (nil, nil, nil) }
            if job.isEmail { return (job, nil, try session.emailCounts(jobID: job.id)) }
            return (job, try Reach.of(job, in: session), nil)
        }
        guard let job else { throw HTTPError.notFound("No such job.") }
        var body = JobBody(job, reach: reach.map(ReachBody.init))
        body.emails = emails.map(EmailCountsBody.init)
        return body
    }

    // MARK: Helpers

    func existingEvent(_ request: Request) throws -> Event {
        try existingEvent(id: request.parameters["eventId"])
    }

    /// The event with this id; 404 when there is none.
    func existingEvent(id: String?) throws -> Event {
        guard let id, AdminIdentifiers.isPlausible(id), let event = try store.withSession(.read, { try $0.event(id: id) }) else {
            throw HTTPError.notFound("No such event.")
        }
        return event
    }

    /// Runs a pass validation (render and validate, no signing) inside the transaction of a
    /// change: a change after which a pass could not be built is refused with 400 and rolled
    /// back, instead of being stored and failing every download of the pass afterwards.
    func requireBuildable(_ validation: () throws -> Void) throws {
        if let reason = try unbuildableReason(validation) {
            throw HTTPError.badRequest("pass: \(reason)", code: "invalid_fields")
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
}

/// Shapes of ids the admin API (and download links) accept before asking the database: the
/// base64url alphabet, as openapi.yaml states; event and job ids are at most 64 characters, link
/// tokens 20 to 128 (a real one is 43).
enum AdminIdentifiers {
    static func isPlausible(_ id: String, lengths: ClosedRange<Int> = 1...64) -> Bool {
        lengths.contains(id.utf8.count) && id.utf8.allSatisfy(IdentifierBytes.isBase64URL)
    }
}

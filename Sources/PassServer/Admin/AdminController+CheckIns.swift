import PassIdentifiers
import Foundation
import HTTPServer
import Storage

/// Check-in at the door as the admin API shows it: the scanner API (`POST /admin/v1/checkins`,
/// `…:batch`), its running count, and undoing a check-in, over `CheckInDesk`. Scanner tokens may
/// use these routes and no other.
extension AdminController {
    /// Most scans in one batch; more is a 400 `too_many_scans` (send the rest in another request).
    static let maxBatchScans = 1_000
    /// How far a scanner's clock may run ahead of the server's before its `scannedAt` counts as now.
    static let scannerClockSkew = ScanTime.clockSkew
    /// How long before it reaches the server a scan may have been made: an older `scannedAt` counts as now.
    static let maxScanAge = ScanTime.maxAge

    /// The door: this controller's store, pass service, metrics and scan warnings.
    var desk: CheckInDesk {
        CheckInDesk(
            store: store, passes: passes, logger: logger, metrics: checkIns, warnings: scanWarnings, pushesEnqueued: pushesEnqueued, now: now,
            hours: doorHours
        )
    }

    /// `POST /admin/v1/checkins`: checks in the ticket of one scanned code, now (or at `scannedAt`).
    /// 200 the first time, 409 `already_checked_in` with the first check-in, 410 `cancelled` with
    /// the reason, 404 `unknown_code` for a code no ticket has (a forged one is logged), 422
    /// `signature_required` for the bare serial of a ticket whose pass carries a signed code, 422
    /// `ambiguous_code` for a typed check code several tickets of the chosen event have, 422
    /// `event_archived` / `event_ended` for a ticket of an event that is over (`DoorHours`).
    /// The scanner is the bearer token's name.
    func checkIn(_ request: Request) throws -> Response {
        let scanner = try tokenNames.name(of: request, role: .scanner, store: store)
        let scan = try ScanInput.single(request)
        return ScanAnswer(try desk.scan(scan, scanner: scanner, requestID: request.requestID)).response
    }

    /// `POST /admin/v1/checkins:batch`: the scans an offline scanner kept, each with its own
    /// `scannedAt` (`CheckInDesk.scan(batch:)`). Every scan's result is reported, in the order
    /// sent (`index`), with the status a single scan would get.
    func checkInBatch(_ request: Request) throws -> Response {
        let scanner = try tokenNames.name(of: request, role: .scanner, store: store)
        let scans = try ScanInput.batch(request)
        return ScanAnswer.batch(try desk.scan(batch: scans, scanner: scanner, requestID: request.requestID))
    }

    /// `GET /admin/v1/events/{eventId}/checkins`: the running count for a scanner's screen,
    /// readable with a scanner token (which cannot read the event itself).
    func checkInCount(_ request: Request) throws -> Response {
        .json(CheckInCountBody(try desk.count(try existingEvent(request))), encoder: .api)
    }

    /// `DELETE /admin/v1/tickets/{serialNumber}/checkin` (admin): undoes a mistaken check-in; the
    /// pass shows its status again and its phones are pushed; the token's name is kept with the
    /// undone check-in. A ticket not checked in is left as it is (200, same revision).
    func undoCheckIn(_ request: Request) throws -> Response {
        let admin = try tokenNames.name(of: request, role: .admin, store: store)
        let pass = try existingTicket(request)
        return .json(try ticketBody(try organizer.ticket(try desk.undo(pass, by: admin, requestID: request.requestID))), encoder: .api)
    }
}

/// Scans as the API reads them.
enum ScanInput {
    static let fields: Set<String> = ["code", "gate", "scannedAt", "eventId"]

    /// The body of a single scan.
    static func single(_ request: Request) throws -> DoorScan {
        var input = try AdminInput(request, allowed: fields)
        let scan = read(&input, scannedAtRequired: false)
        try input.validate()
        guard let scan else { throw HTTPError.badRequest("code is required.", code: "invalid_fields") }
        return scan
    }

    /// The body of a batch: `{"scans": [...]}`, each with its `scannedAt`.
    static func batch(_ request: Request) throws -> [DoorScan] {
        var input = try AdminInput(request, allowed: ["scans"])
        var scans: [DoorScan] = []
        switch input.value("scans") {
        case nil:
            input.problem("scans", "is required")
        case .array(let items)?:
            guard items.count <= AdminController.maxBatchScans else {
                throw HTTPError(
                    status: 400, code: "too_many_scans",
                    message: "At most \(AdminController.maxBatchScans) scans per request (this one has \(items.count)); send the rest in another request."
                )
            }
            for (index, item) in items.enumerated() {
                guard case .object(let object) = item else {
                    input.problem("scans[\(index)]", "must be an object")
                    continue
                }
                var element = AdminInput(object: object, allowed: fields, prefix: "scans[\(index)].")
                if let scan = read(&element, scannedAtRequired: true) { scans.append(scan) }
                input.absorb(element)
            }
        default:
            input.problem("scans", "must be an array")
        }
        try input.validate()
        return scans
    }

    /// Reads one scan's fields; nil (with the problems noted) when it is not usable. The code is
    /// taken as scanned (what a scanner reads is never refused for its characters: a code that is
    /// no ticket's is a 404); a `scannedAt` out of bounds is the desk's to judge (`ScanTime`).
    static func read(_ input: inout AdminInput, scannedAtRequired: Bool) -> DoorScan? {
        var code: String?
        switch input.string("code", maxLength: CheckInCode.maxLength) {
        case .value(let text) where text.isEmpty: input.problem("code", "must not be empty")
        case .value(let text): code = text
        case .absent where !input.isPresent("code"): input.problem("code", "is required")
        default: break
        }
        let gate = input.text("gate", maxLength: 64).value
        var eventID: String?
        if case .value(let id) = input.string("eventId", maxLength: 64) {
            if AdminIdentifiers.isPlausible(id) { eventID = id } else { input.problem("eventId", "must be an event id (letters, digits, - and _)") }
        }
        var scannedAt: Date?
        switch input.date("scannedAt") {
        case .value(let date):
            scannedAt = date
        case .absent where scannedAtRequired && !input.isPresent("scannedAt"):
            input.problem("scannedAt", "is required")
        default:
            break
        }
        guard let code else { return nil }
        return DoorScan(code: code, gate: gate, scannedAt: scannedAt, eventID: eventID)
    }
}

/// A scan's outcome as the API answers it: status, message and body.
struct ScanAnswer {
    var status: Int
    var message: String
    var body: ScanBody

    init(_ outcome: ScanOutcome) {
        switch outcome {
        case .unknown, .forged:
            // A forged code is answered like an unknown one, so a forger learns nothing.
            (status, message, body) = (404, "No ticket has this code.", ScanBody(result: "unknown_code"))
        case .signatureRequired:
            // It tells the door what to do and nothing about the ticket.
            status = 422
            message = "This ticket's pass carries a signed code: scan the QR code on the pass. "
                + "Its serial number alone (printed on the pass, in exports and links) does not let anyone in."
            body = ScanBody(result: "signature_required")
        case .ambiguousCheckCode:
            status = 422
            message = "More than one ticket of this event has this check code: scan the QR code on the pass."
            body = ScanBody(result: "ambiguous_code")
        case .eventArchived(let ticket):
            (status, message) = (422, "This ticket's event is archived: its tickets no longer check in.")
            body = ScanBody(result: "event_archived", ticket)
        case .eventEnded(let ticket, let end):
            (status, message) = (422, "This ticket's event ended at \(ISODate.format(end)): its tickets no longer check in.")
            body = ScanBody(result: "event_ended", ticket)
            body.eventEndedAt = ISODate.format(end)
        case .otherEvent:
            (status, message) = (422, "This ticket is for another event: it does not check in at this door.")
            body = ScanBody(result: "other_event")
        case .admitted(let ticket, let adjusted):
            (status, message) = (200, "Checked in.")
            body = ScanBody(result: "checked_in", ticket)
            body.scannedAtAdjusted = adjusted.map(ScanBody.Adjusted.init)
        case .alreadyCheckedIn(let ticket):
            status = 409
            message = ticket.record.map { record in
                "This ticket was checked in at \(ISODate.format(record.checkedInAt))\(record.gate.map { " at gate \($0)" } ?? "")."
            } ?? "This ticket was checked in."
            body = ScanBody(result: "already_checked_in", ticket)
        case .cancelled(let ticket):
            (status, message) = (410, "This ticket is cancelled.")
            body = ScanBody(result: "cancelled", ticket)
            body.reason = ticket.pass.cancellationReason
        }
    }

    /// The answer to a single scan: a refusal carries its error too.
    var response: Response {
        var body = body
        if status != 200 { body.error = ScanBody.ErrorInfo(code: body.result, message: message) }
        return .json(body, status: status, encoder: .api)
    }

    /// The answer to a batch: every scan's result in the order sent, and how many had each.
    static func batch(_ outcomes: [ScanOutcome]) -> Response {
        let results = outcomes.enumerated().map { index, outcome in
            let answer = ScanAnswer(outcome)
            var body = answer.body
            body.index = index
            body.status = answer.status
            return body
        }
        var counts: [String: Int] = [:]
        for result in results { counts[result.result, default: 0] += 1 }
        return .json(BatchBody(results: results, counts: counts), encoder: .api)
    }
}

/// What a scanner is told about one scan.
struct ScanBody: Encodable {
    struct ErrorInfo: Encodable {
        var code: String
        var message: String
    }

    /// Position of the scan in a batch as sent.
    var index: Int?
    /// The status a single scan gets (in a batch).
    var status: Int?
    /// `checked_in`, `already_checked_in`, `cancelled`, `unknown_code`, `signature_required`,
    /// `ambiguous_code`, `event_archived`, `event_ended` or (a door-staff phone's scan of another
    /// event's ticket) `other_event`.
    var result: String
    /// The error of a refused single scan.
    var error: ErrorInfo?
    /// The ticket's serial number.
    var ticket: String?
    var eventId: String?
    var attendeeName: String?
    var seat: String?
    /// When the ticket was checked in: by this scan (200) or the first time (409).
    var checkedInAt: String?
    var gate: String?
    /// Why a cancelled ticket was cancelled.
    var reason: String?
    /// When the event of an `event_ended` ticket ended (its start + 4 hours when it has no end).
    var eventEndedAt: String?
    /// True for an old serial-only code (no signature to check).
    var unsigned: Bool?
    /// The check code printed under the ticket's barcode, to compare with the phone's screen.
    var checkCode: String?
    /// A `scannedAt` the check-in did not take (it counts as made when the server got it).
    var scannedAtAdjusted: Adjusted?

    /// A `scannedAt` out of bounds: as sent, and why it was not taken.
    struct Adjusted: Encodable {
        var sent: Date
        var reason: String

        init(_ adjustment: ScanTime.Adjustment) {
            sent = adjustment.sent
            reason = adjustment.reason.rawValue
        }

        private enum CodingKeys: String, CodingKey { case sent, reason }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(ISODate.format(sent), forKey: .sent)
            try container.encode(reason, forKey: .reason)
        }
    }

    init(result: String) {
        self.result = result
    }

    init(result: String, _ scanned: ScannedTicket) {
        self.result = result
        let pass = scanned.pass
        ticket = pass.serialNumber.rawValue
        eventId = pass.eventID
        attendeeName = pass.attendeeName
        seat = pass.seat
        checkedInAt = scanned.record.map { ISODate.format($0.checkedInAt) }
        gate = scanned.record?.gate
        unsigned = scanned.unsigned
        checkCode = scanned.checkCode
    }
}

struct BatchBody: Encodable {
    var results: [ScanBody]
    /// How many scans had each result.
    var counts: [String: Int]
}

struct CheckInCountBody: Encodable {
    var eventId: String
    /// Active tickets checked in.
    var checkedIn: Int
    /// Active (not cancelled) tickets.
    var total: Int

    init(_ count: CheckInCount) {
        eventId = count.eventID
        checkedIn = count.checkedIn
        total = count.total
    }
}

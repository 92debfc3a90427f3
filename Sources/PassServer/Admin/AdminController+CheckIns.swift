import PassIdentifiers
import Foundation
import HTTPServer
import Logging
import PassBundle
import Storage

/// Check-in at the door: the scanner API (`POST /admin/v1/checkins`, `…:batch`), its running
/// count, and undoing a check-in. Scanner tokens may use these routes and no other.
extension AdminController {
    /// Most scans in one batch; more is a 400 `too_many_scans` (send the rest in another request).
    static let maxBatchScans = 1_000
    /// How far a scanner's clock may run ahead of the server's before its `scannedAt` counts as now.
    static let scannerClockSkew: TimeInterval = 300
    /// How long before it reaches the server a scan may have been made (a scanner offline for
    /// longer, or a `scannedAt` in 1970): an older `scannedAt` counts as now.
    static let maxScanAge: TimeInterval = 48 * 3_600

    /// `POST /admin/v1/checkins`: checks in the ticket of one scanned code, now (or at `scannedAt`).
    /// 200 the first time, 409 `already_checked_in` with the first check-in, 410 `cancelled` with
    /// the reason, 404 `unknown_code` for a code no ticket has (a forged one is logged), 422
    /// `signature_required` for the bare serial of a ticket whose pass carries a signed code.
    /// `scanner` names who scanned when the caller has already identified them (the dashboard's
    /// scanner page, by its session); otherwise it is the bearer token's name.
    func checkIn(_ request: Request, scanner knownScanner: String? = nil) throws -> Response {
        let scanner = try knownScanner ?? tokenNames.name(of: request, role: .scanner, store: store)
        var input = try AdminInput(request, allowed: ScanInput.fields)
        let scan = ScanInput.read(&input, scannedAtRequired: false, now: now())
        try input.validate()
        guard let scan else { throw HTTPError.badRequest("code is required.", code: "invalid_fields") }
        var suspicious = SuspiciousScans()
        let answer = try apply(scan, scanner: scanner, suspicious: &suspicious, request: request)
        log(suspicious, batch: nil, scanner: scanner, request: request)
        if answer.enqueued > 0 { pushesEnqueued() }
        var body = answer.body
        if answer.status != 200 { body.error = ScanBody.ErrorInfo(code: body.result, message: answer.message) }
        return .json(body, status: answer.status, encoder: .api)
    }

    /// `POST /admin/v1/checkins:batch`: the scans an offline scanner kept, each with its own
    /// `scannedAt`. They are applied in scan order (by `scannedAt`, ties in the order sent): the
    /// earliest scan of a ticket in the batch checks it in, later ones are duplicates; a ticket
    /// checked in before (by another scanner meanwhile, or an earlier batch) keeps that check-in,
    /// whatever the time of this batch's scan. Every scan's result is reported, in the order sent
    /// (`index`), with the status a single scan would get. Forged codes and bare serials of signed
    /// tickets are logged in one line for the batch.
    func checkInBatch(_ request: Request, scanner knownScanner: String? = nil) throws -> Response {
        let scanner = try knownScanner ?? tokenNames.name(of: request, role: .scanner, store: store)
        var input = try AdminInput(request, allowed: ["scans"])
        var scans: [ScanInput] = []
        switch input.value("scans") {
        case nil:
            input.problem("scans", "is required")
        case .array(let items)?:
            guard items.count <= Self.maxBatchScans else {
                throw HTTPError(
                    status: 400, code: "too_many_scans",
                    message: "At most \(Self.maxBatchScans) scans per request (this one has \(items.count)); send the rest in another request."
                )
            }
            let time = now()
            for (index, item) in items.enumerated() {
                guard case .object(let object) = item else {
                    input.problem("scans[\(index)]", "must be an object")
                    continue
                }
                var element = AdminInput(object: object, allowed: ScanInput.fields, prefix: "scans[\(index)].")
                if let scan = ScanInput.read(&element, scannedAtRequired: true, now: time) { scans.append(scan) }
                input.absorb(element)
            }
        default:
            input.problem("scans", "must be an array")
        }
        try input.validate()
        // By the time each scan counts as made (a time out of bounds counts as now).
        let order = scans.indices.sorted { (scans[$0].scannedAt ?? .distantPast, $0) < (scans[$1].scannedAt ?? .distantPast, $1) }
        var results = [ScanBody?](repeating: nil, count: scans.count)
        var enqueued = 0
        var suspicious = SuspiciousScans()
        for index in order {
            let answer = try apply(scans[index], scanner: scanner, suspicious: &suspicious, request: request)
            enqueued += answer.enqueued
            var body = answer.body
            body.index = index
            body.status = answer.status
            results[index] = body
        }
        log(suspicious, batch: scans.count, scanner: scanner, request: request)
        if enqueued > 0 { pushesEnqueued() }
        let reported = results.compactMap { $0 }
        var counts: [String: Int] = [:]
        for result in reported { counts[result.result, default: 0] += 1 }
        return .json(BatchBody(results: reported, counts: counts), encoder: .api)
    }

    /// `GET /admin/v1/events/{eventId}/checkins`: the running count for a scanner's screen,
    /// readable with a scanner token (which cannot read the event itself).
    func checkInCount(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        let (checkedIn, tally) = try store.withSession(.read) { session in
            (try session.checkInCounts(eventIDs: [event.id])[event.id] ?? 0, try session.eventTally(eventID: event.id).total)
        }
        return .json(CheckInCountBody(eventId: event.id, checkedIn: checkedIn, total: Int(tally.tickets - tally.cancelled)), encoder: .api)
    }

    /// `DELETE /admin/v1/tickets/{serialNumber}/checkin` (admin): undoes a mistaken check-in; the
    /// pass shows its status again and its phones are pushed. A ticket not checked in is left as
    /// it is (200, same revision).
    func undoCheckIn(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        let update = try store.withSession(.write) { session in
            try session.undoCheckIn(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, now: now())
        }
        if case .updated(let updated, let enqueued) = update {
            logger.info("check-in undone", [
                "pass.serial": updated.serialNumber.rawValue, "revision": "\(updated.revision)", "pushes": "\(enqueued)", "request.id": request.requestID,
            ])
            if enqueued > 0 { pushesEnqueued() }
        }
        return .json(try ticketBody(update.pass), encoder: .api)
    }

    // MARK: One scan

    private struct Answer {
        var status: Int
        var message: String
        var body: ScanBody
        var enqueued = 0
    }

    private static let unknown = Answer(status: 404, message: "No ticket has this code.", body: ScanBody(result: "unknown_code"))
    /// The answer to the bare serial of a ticket whose pass carries a signed code: it tells the
    /// door what to do and nothing about the ticket (its serial is no secret; its holder is).
    private static let signatureRequired = Answer(
        status: 422,
        message: "This ticket's pass carries a signed code: scan the QR code on the pass. "
            + "Its serial number alone (printed on the pass, in exports and links) does not let anyone in.",
        body: ScanBody(result: "signature_required")
    )

    /// Verifies the code and applies the scan in its own transaction; forged codes and refused
    /// bare serials are noted in `suspicious`, for the caller to log.
    private func apply(_ scan: ScanInput, scanner: String, suspicious: inout SuspiciousScans, request: Request) throws -> Answer {
        guard let passType = passes.passType else {
            checkIns.record(.unknown)
            return Self.unknown
        }
        let serial: SerialNumber
        let unsigned: Bool
        switch CheckInCode.parse(scan.code) {
        case .malformed:
            checkIns.record(.unknown)
            return Self.unknown
        case .unsigned(let plain):
            switch try bareSerial(plain, passType: passType) {
            case .noTicket:
                checkIns.record(.unknown)
                return Self.unknown
            case .refused:
                checkIns.record(.signatureRequired)
                suspicious.note(scan, serial: plain, forged: false)
                return Self.signatureRequired
            case .accepted:
                (serial, unsigned) = (plain, true)
            }
        case .signed(let signed, let mac):
            guard try passes.vault.verifiesBarcode(passType: passType, serial: signed, mac: mac) else {
                checkIns.record(.forged)
                // Answered like an unknown code, so a forger learns nothing, and logged for the organizer.
                suspicious.note(scan, serial: signed, forged: true)
                return Self.unknown
            }
            (serial, unsigned) = (signed, false)
        }
        let checkCode = try passes.vault.checkCode(passType: passType, serial: serial)
        var answer = try record(scan, passType: passType, serial: serial, unsigned: unsigned, scanner: scanner, request: request)
        if answer.body.ticket != nil { answer.body.checkCode = checkCode }
        return answer
    }

    private enum BareSerial {
        case noTicket
        case accepted
        case refused
    }

    /// Whether a bare serial (no signature) may check its ticket in: only where the ticket's pass
    /// never carried a signed code. That is a pass issued before barcodes were signed (created
    /// before the check-in migration was applied: its phones may still hold the serial-only
    /// code), or one whose template puts no signed code in its barcode (`{{serialNumber}}`
    /// instead of `{{barcodeMessage}}`, or no barcode at all). Every other pass carries
    /// `serial~mac`, and its serial, printed on the back, in exports and in links, proves nothing.
    /// A pass whose barcode cannot be rendered (no event, a template gone) is refused.
    private func bareSerial(_ serial: SerialNumber, passType: PassTypeIdentifier) throws -> BareSerial {
        let (found, signedSince, event) = try store.withSession(.read) { session -> (StoredPass?, Date?, Event?) in
            guard let pass = try session.pass(passTypeIdentifier: passType, serialNumber: serial) else { return (nil, nil, nil) }
            return (pass, try session.signedBarcodesSince(), try pass.eventID.flatMap { try session.event(id: $0) })
        }
        guard let pass = found else { return .noTicket }
        if let signedSince, pass.createdAt < signedSince { return .accepted }
        guard let event else { return .refused }
        let rendered: PassDefinition.Barcode?
        do {
            rendered = try passes.barcode(for: pass, event: event)
        } catch {
            return .refused
        }
        guard let barcode = rendered else { return .accepted }
        let signed = try passes.vault.barcode(passType: passType, serial: serial).message
        return barcode.message.contains(signed) ? .refused : .accepted
    }

    /// Applies a scan of a verified (or accepted unsigned) code.
    private func record(
        _ scan: ScanInput, passType: PassTypeIdentifier, serial: SerialNumber, unsigned: Bool, scanner: String, request: Request
    ) throws -> Answer {
        let time = now()
        let outcome = try store.withSession(.write) { session in
            try session.checkIn(
                Scan(passTypeIdentifier: passType, serialNumber: serial, scannedAt: scan.scannedAt ?? time, gate: scan.gate, scanner: scanner),
                now: time
            )
        }
        switch outcome {
        case .notFound:
            checkIns.record(.unknown)
            return Self.unknown
        case .checkedIn(let pass, let record, let enqueued):
            checkIns.record(.checkedIn)
            logger.info("ticket checked in", [
                "pass.serial": pass.serialNumber.rawValue, "revision": "\(pass.revision)", "pushes": "\(enqueued)", "checkin.gate": record.gate ?? "",
                "unsigned": "\(unsigned)", "request.id": request.requestID,
            ])
            var body = ScanBody(result: "checked_in", pass: pass, record: record, unsigned: unsigned)
            // The store took a time before the ticket was issued as now.
            let beforeIssue = scan.adjusted == nil && scan.scannedAt.map { $0 < pass.createdAt } == true
            body.scannedAtAdjusted = beforeIssue ? scan.scannedAt.map { ScanBody.Adjusted(sent: $0, reason: .beforeIssue) } : scan.adjusted
            return Answer(status: 200, message: "Checked in.", body: body, enqueued: enqueued)
        case .alreadyCheckedIn(let pass, let record):
            checkIns.record(.alreadyCheckedIn)
            let message = "This ticket was checked in at \(ISODate.format(record.checkedInAt))\(record.gate.map { " at gate \($0)" } ?? "")."
            return Answer(status: 409, message: message, body: ScanBody(result: "already_checked_in", pass: pass, record: record, unsigned: unsigned))
        case .cancelled(let pass):
            checkIns.record(.cancelled)
            var body = ScanBody(result: "cancelled", pass: pass, record: nil, unsigned: unsigned)
            body.reason = pass.cancellationReason
            return Answer(status: 410, message: "This ticket is cancelled.", body: body)
        }
    }

    // MARK: Logging suspicious scans

    /// Writes the warning line of a request's suspicious scans (none: nothing), if the scanner's
    /// lines are within `ScanWarnings.linesPerMinute`: one line per request, a batch's with its
    /// counts and a few of its codes (`batch` is its number of scans; nil for a single scan).
    private func log(_ suspicious: SuspiciousScans, batch: Int?, scanner: String, request: Request) {
        guard let first = suspicious.samples.first else { return }
        guard let unlogged = scanWarnings.admit(scanner: scanner, scans: suspicious.total, now: now()) else { return }
        // Everything a scanner sends is escaped by the logger.
        var fields: Logger.Metadata = ["admin.token": scanner, "request.id": request.requestID]
        if unlogged > 0 { fields["checkin.unlogged"] = "\(unlogged)" }
        guard let batch else {
            fields["checkin.code"] = first.code
            fields["pass.serial"] = first.serial
            fields["checkin.gate"] = first.gate
            logger.warning(suspicious.forged > 0 ? "forged ticket code scanned" : "bare serial of a signed ticket scanned", fields)
            return
        }
        fields["checkin.scans"] = "\(batch)"
        fields["checkin.forged"] = "\(suspicious.forged)"
        fields["checkin.unsigned"] = "\(suspicious.unsigned)"
        fields["checkin.gate"] = first.gate
        for (number, sample) in suspicious.samples.enumerated() { fields["checkin.sample.\(number + 1)"] = sample.code }
        logger.warning("forged codes or bare serials of signed tickets in a batch", fields)
    }
}

/// The forged codes and refused bare serials of one request, counted, with the first few kept
/// for its log line.
struct SuspiciousScans {
    struct Sample {
        var code: String
        var serial: String
        var gate: String
    }

    var forged = 0
    var unsigned = 0
    var samples: [Sample] = []

    var total: Int { forged + unsigned }

    mutating func note(_ scan: ScanInput, serial: SerialNumber, forged isForged: Bool) {
        if isForged { forged += 1 } else { unsigned += 1 }
        if samples.count < ScanWarnings.samples { samples.append(Sample(code: scan.code, serial: serial.rawValue, gate: scan.gate ?? "")) }
    }
}

/// One scan as sent: the code, the gate and when it was scanned.
struct ScanInput {
    static let fields: Set<String> = ["code", "gate", "scannedAt"]

    var code: String
    var gate: String?
    /// When the scan counts as made: the `scannedAt` sent, or now when that is out of bounds.
    var scannedAt: Date?
    /// The `scannedAt` sent, when it was out of bounds, and why.
    var adjusted: ScanBody.Adjusted?

    /// Reads one scan's fields; nil (with the problems noted) when it is not usable. The code is
    /// taken as scanned (what a scanner reads is never refused for its characters: a code that is
    /// no ticket's is a 404); a `scannedAt` ahead of the server's clock by more than
    /// `scannerClockSkew`, or older than `maxScanAge`, counts as now (the scan happened; the
    /// scanner's clock is wrong, or it was kept too long to be believed), and says so.
    static func read(_ input: inout AdminInput, scannedAtRequired: Bool, now: Date) -> ScanInput? {
        var code: String?
        switch input.string("code", maxLength: CheckInCode.maxLength) {
        case .value(let text) where text.isEmpty: input.problem("code", "must not be empty")
        case .value(let text): code = text
        case .absent where !input.isPresent("code"): input.problem("code", "is required")
        default: break
        }
        let gate = input.text("gate", maxLength: 64).value
        var scannedAt: Date?
        var adjusted: ScanBody.Adjusted?
        switch input.date("scannedAt") {
        case .value(let date) where date > now.addingTimeInterval(AdminController.scannerClockSkew):
            (scannedAt, adjusted) = (now, ScanBody.Adjusted(sent: date, reason: .ahead))
        case .value(let date) where date < now.addingTimeInterval(-AdminController.maxScanAge):
            (scannedAt, adjusted) = (now, ScanBody.Adjusted(sent: date, reason: .tooOld))
        case .value(let date):
            scannedAt = date
        case .absent where scannedAtRequired && !input.isPresent("scannedAt"):
            input.problem("scannedAt", "is required")
        default:
            break
        }
        guard let code else { return nil }
        return ScanInput(code: code, gate: gate, scannedAt: scannedAt, adjusted: adjusted)
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
    /// `checked_in`, `already_checked_in`, `cancelled`, `unknown_code` or `signature_required`.
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
    /// True for an old serial-only code (no signature to check).
    var unsigned: Bool?
    /// The check code printed under the ticket's barcode, to compare with the phone's screen.
    var checkCode: String?
    /// A `scannedAt` the check-in did not take (it counts as made when the server got it).
    var scannedAtAdjusted: Adjusted?

    /// A `scannedAt` out of bounds: as sent, and why it was not taken.
    struct Adjusted: Encodable {
        enum Reason: String, Encodable {
            /// More than `scannerClockSkew` ahead of the server's clock.
            case ahead
            /// Older than `maxScanAge` when it reached the server.
            case tooOld = "too_old"
            /// Before the ticket was issued.
            case beforeIssue = "before_issue"
        }

        var sent: Date
        var reason: Reason

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

    init(result: String, pass: StoredPass, record: CheckIn?, unsigned: Bool) {
        self.result = result
        ticket = pass.serialNumber.rawValue
        eventId = pass.eventID
        attendeeName = pass.attendeeName
        seat = pass.seat
        checkedInAt = record.map { ISODate.format($0.checkedInAt) }
        gate = record?.gate
        self.unsigned = unsigned
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
}

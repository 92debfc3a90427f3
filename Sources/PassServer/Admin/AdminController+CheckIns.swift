import PassIdentifiers
import Foundation
import HTTPServer
import Storage

/// Check-in at the door: the scanner API (`POST /admin/v1/checkins`, `…:batch`), its running
/// count, and undoing a check-in. Scanner tokens may use these routes and no other.
extension AdminController {
    /// Most scans in one batch; more is a 400 `too_many_scans` (send the rest in another request).
    static let maxBatchScans = 1_000
    /// How far a scanner's clock may run ahead of the server's before its `scannedAt` counts as now.
    static let scannerClockSkew: TimeInterval = 300

    /// `POST /admin/v1/checkins`: checks in the ticket of one scanned code, now (or at `scannedAt`).
    /// 200 the first time, 409 `already_checked_in` with the first check-in, 410 `cancelled` with
    /// the reason, 404 `unknown_code` for a code no ticket has (a forged one is logged).
    /// `scanner` names who scanned when the caller has already identified them (the dashboard's
    /// scanner page, by its session); otherwise it is the bearer token's name.
    func checkIn(_ request: Request, scanner knownScanner: String? = nil) throws -> Response {
        let scanner = try knownScanner ?? tokenNames.name(of: request, role: .scanner, store: store)
        var input = try AdminInput(request, allowed: ScanInput.fields)
        let scan = ScanInput.read(&input, scannedAtRequired: false, now: now())
        try input.validate()
        guard let scan else { throw HTTPError.badRequest("code is required.", code: "invalid_fields") }
        let answer = try apply(scan, scanner: scanner, earliestWins: false, request: request)
        if answer.enqueued > 0 { pushesEnqueued() }
        var body = answer.body
        if answer.status != 200 { body.error = ScanBody.ErrorInfo(code: body.result, message: answer.message) }
        return .json(body, status: answer.status, encoder: .api)
    }

    /// `POST /admin/v1/checkins:batch`: the scans an offline scanner kept, each with its own
    /// `scannedAt`. They are applied in scan order (by `scannedAt`, ties in the order sent): the
    /// earliest scan of a ticket checks it in, later ones are duplicates; a scan older than a
    /// check-in another scanner recorded meanwhile takes its place (`superseded`). Every scan's
    /// result is reported, in the order sent (`index`), with the status a single scan would get.
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
        let order = scans.indices.sorted { (scans[$0].scannedAt ?? .distantPast, $0) < (scans[$1].scannedAt ?? .distantPast, $1) }
        var results = [ScanBody?](repeating: nil, count: scans.count)
        var enqueued = 0
        for index in order {
            let answer = try apply(scans[index], scanner: scanner, earliestWins: true, request: request)
            enqueued += answer.enqueued
            var body = answer.body
            body.index = index
            body.status = answer.status
            results[index] = body
        }
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
        return .json(CheckInCountBody(eventId: event.id, checkedIn: checkedIn, total: Int(tally.tickets - tally.voided)), encoder: .api)
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

    /// Verifies the code and applies the scan in its own transaction.
    private func apply(_ scan: ScanInput, scanner: String, earliestWins: Bool, request: Request) throws -> Answer {
        let unknown = Answer(status: 404, message: "No ticket has this code.", body: ScanBody(result: "unknown_code"))
        let serial: SerialNumber
        let unsigned: Bool
        switch CheckInCode.parse(scan.code) {
        case .malformed:
            checkIns.record(.unknown)
            return unknown
        case .unsigned(let plain):
            (serial, unsigned) = (plain, true)
        case .signed(let signed, let mac):
            guard let passType = passes.passType,
                try passes.vault.verifiesBarcode(passType: passType, serial: signed, mac: mac)
            else {
                checkIns.record(.forged)
                // Answered like an unknown code, so a forger learns nothing, and logged for the organizer.
                logger.warning("forged ticket code scanned", [
                    "checkin.code": scan.code, "pass.serial": signed.rawValue, "checkin.gate": scan.gate ?? "", "admin.token": scanner,
                    "request.id": request.requestID,
                ])
                return unknown
            }
            (serial, unsigned) = (signed, false)
        }
        let checkCode = try passes.passType.map { try passes.vault.checkCode(passType: $0, serial: serial) }
        var answer = try record(scan, serial: serial, unsigned: unsigned, scanner: scanner, earliestWins: earliestWins, request: request)
        if answer.body.ticket != nil { answer.body.checkCode = checkCode }
        return answer
    }

    /// Applies a scan of a verified (or unsigned) code.
    private func record(
        _ scan: ScanInput, serial: SerialNumber, unsigned: Bool, scanner: String, earliestWins: Bool, request: Request
    ) throws -> Answer {
        let unknown = Answer(status: 404, message: "No ticket has this code.", body: ScanBody(result: "unknown_code"))
        let time = now()
        guard let passType = passes.passType else {
            checkIns.record(.unknown)
            return unknown
        }
        let outcome = try store.withSession(.write) { session in
            try session.checkIn(
                Scan(passTypeIdentifier: passType, serialNumber: serial, scannedAt: scan.scannedAt ?? time, gate: scan.gate, scanner: scanner),
                earliestWins: earliestWins, now: time
            )
        }
        switch outcome {
        case .notFound:
            checkIns.record(.unknown)
            return unknown
        case .checkedIn(let pass, let record, let enqueued, let superseded):
            checkIns.record(.checkedIn)
            logger.info("ticket checked in", [
                "pass.serial": pass.serialNumber.rawValue, "revision": "\(pass.revision)", "pushes": "\(enqueued)", "checkin.gate": record.gate ?? "",
                "unsigned": "\(unsigned)", "request.id": request.requestID,
            ])
            var body = ScanBody(result: "checked_in", pass: pass, record: record, unsigned: unsigned)
            body.superseded = superseded.map { CheckInBody(checkedInAt: ISODate.format($0.checkedInAt), gate: $0.gate) }
            return Answer(status: 200, message: "Checked in.", body: body, enqueued: enqueued)
        case .alreadyCheckedIn(let pass, let record):
            checkIns.record(.alreadyCheckedIn)
            let message = "This ticket was checked in at \(ISODate.format(record.checkedInAt))\(record.gate.map { " at gate \($0)" } ?? "")."
            return Answer(status: 409, message: message, body: ScanBody(result: "already_checked_in", pass: pass, record: record, unsigned: unsigned))
        case .cancelled(let pass):
            checkIns.record(.cancelled)
            var body = ScanBody(result: "cancelled", pass: pass, record: nil, unsigned: unsigned)
            body.reason = pass.voidReason
            return Answer(status: 410, message: "This ticket is cancelled.", body: body)
        }
    }
}

/// One scan as sent: the code, the gate and when it was scanned.
struct ScanInput {
    static let fields: Set<String> = ["code", "gate", "scannedAt"]

    var code: String
    var gate: String?
    var scannedAt: Date?

    /// Reads one scan's fields; nil (with the problems noted) when it is not usable. The code is
    /// taken as scanned (what a scanner reads is never refused for its characters: a code that is
    /// no ticket's is a 404); a `scannedAt` ahead of the server's clock by more than
    /// `scannerClockSkew` counts as now (the scan happened; the scanner's clock is wrong).
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
        switch input.date("scannedAt") {
        case .value(let date):
            scannedAt = date > now.addingTimeInterval(AdminController.scannerClockSkew) ? now : date
        case .absent where scannedAtRequired && !input.isPresent("scannedAt"):
            input.problem("scannedAt", "is required")
        default:
            break
        }
        guard let code else { return nil }
        return ScanInput(code: code, gate: gate, scannedAt: scannedAt)
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
    /// `checked_in`, `already_checked_in`, `cancelled` or `unknown_code`.
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
    /// The later check-in an earlier offline scan replaced (batch only).
    var superseded: CheckInBody?

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

struct CheckInBody: Encodable {
    var checkedInAt: String
    var gate: String?
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

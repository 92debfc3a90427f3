import Foundation
import Logging
import PassBundle
import PassIdentifiers
import Storage

/// Check-in at the door: scanning a ticket's code (one, or the batch an offline scanner kept),
/// the running count of an event, and undoing a mistaken check-in. Typed in and out: a
/// `DoorScan` in, a `ScanOutcome` out; the admin API and the dashboard's scanner page are
/// transports over it and refuse nothing it would take.
///
/// Every scan is counted in `metrics`; forged codes and bare serials of signed tickets are logged,
/// one line per request, bounded per scanner by `warnings`. A check-in that enqueued pushes wakes
/// the dispatcher (`pushesEnqueued`).
struct CheckInDesk: Sendable {
    let store: any Store
    let passes: PassService
    let logger: Logger
    /// Scans answered, by result (shared with `/metrics`).
    var metrics: CheckInMetrics
    /// Bounds the warning lines of forged codes and bare serials, per scanner.
    var warnings: ScanWarnings
    /// Called after a check-in or its undo enqueued pushes (wakes the dispatcher).
    var pushesEnqueued: @Sendable () -> Void = {}
    var now: @Sendable () -> Date = Date.init
    /// Until when an event's tickets check in.
    var hours = DoorHours()
    /// The one event this door checks in (a door-staff phone's): a ticket of any other is
    /// refused (`otherEvent`), and a typed check code is looked up among its tickets. Nil: every event's.
    var onlyEvent: String?

    /// Checks in the ticket of one scanned code, now (or at `scannedAt`). `scanner` names who
    /// scanned (a token's name); `requestID` goes into the log lines.
    func scan(_ scan: DoorScan, scanner: String, requestID: String) throws -> ScanOutcome {
        let (at, adjusted) = ScanTime.effective(scan.scannedAt, now: now())
        var suspicious = SuspiciousScans()
        var enqueued = 0
        let outcome = try apply(scan, at: at, adjusted: adjusted, scanner: scanner, suspicious: &suspicious, enqueued: &enqueued, requestID: requestID)
        suspicious.log(to: logger, warnings: warnings, batch: nil, scanner: scanner, requestID: requestID, now: now())
        if enqueued > 0 { pushesEnqueued() }
        return outcome
    }

    /// The scans an offline scanner kept, each with its own `scannedAt`; their outcomes in the
    /// order sent. They are applied in scan order (by the time each counts as made, ties in the
    /// order sent): the earliest scan of a ticket checks it in, later ones are duplicates; a
    /// ticket checked in before (by another scanner meanwhile, or an earlier batch) keeps that
    /// check-in, whatever the time of this batch's scan. Forged codes and bare serials of signed
    /// tickets are logged in one line for the batch.
    func scan(batch scans: [DoorScan], scanner: String, requestID: String) throws -> [ScanOutcome] {
        let time = now()
        let times = scans.map { ScanTime.effective($0.scannedAt, now: time) }
        let order = scans.indices.sorted { (times[$0].at ?? .distantPast, $0) < (times[$1].at ?? .distantPast, $1) }
        var outcomes = [ScanOutcome](repeating: .unknown, count: scans.count)
        var suspicious = SuspiciousScans()
        var enqueued = 0
        for index in order {
            outcomes[index] = try apply(
                scans[index], at: times[index].at, adjusted: times[index].adjusted, scanner: scanner, suspicious: &suspicious,
                enqueued: &enqueued, requestID: requestID
            )
        }
        suspicious.log(to: logger, warnings: warnings, batch: scans.count, scanner: scanner, requestID: requestID, now: now())
        if enqueued > 0 { pushesEnqueued() }
        return outcomes
    }

    /// The running count of `event`'s door, for a scanner's screen.
    func count(_ event: Event) throws -> CheckInCount {
        let (checkedIn, tally) = try store.withSession(.read) { session in
            (try session.checkIns.checkInCounts(eventIDs: [event.id])[event.id] ?? 0, try session.reach.eventTally(eventID: event.id).total)
        }
        return CheckInCount(eventID: event.id, checkedIn: checkedIn, total: Int(tally.tickets - tally.cancelled))
    }

    /// Undoes a mistaken check-in of `ticket`: the pass shows its status again and its phones are
    /// pushed; the check-in is kept among the ticket's undone ones with `undoneBy` (the admin
    /// token's name) and the time, and logged. A ticket not checked in is left as it is. The pass
    /// after the undo.
    func undo(_ ticket: StoredPass, by undoneBy: String, requestID: String) throws -> StoredPass {
        let update = try store.withSession(.write) { session in
            try session.checkIns.undoCheckIn(passTypeIdentifier: ticket.passTypeIdentifier, serialNumber: ticket.serialNumber, undoneBy: undoneBy, now: now())
        }
        if case .updated(let updated, let enqueued) = update {
            logger.info("check-in undone", [
                "pass.serial": updated.serialNumber.rawValue, "revision": "\(updated.revision)", "pushes": "\(enqueued)", "undone.by": undoneBy,
                "request.id": requestID,
            ])
            if enqueued > 0 { pushesEnqueued() }
        }
        return update.pass
    }

    // MARK: One scan

    /// Verifies the code and applies the scan in its own transaction, counting it; forged codes
    /// and refused bare serials are noted in `suspicious`, for the caller to log.
    private func apply(
        _ scan: DoorScan, at: Date?, adjusted: ScanTime.Adjustment?, scanner: String, suspicious: inout SuspiciousScans,
        enqueued: inout Int, requestID: String
    ) throws -> ScanOutcome {
        let outcome = try verify(scan, at: at, adjusted: adjusted, scanner: scanner, suspicious: &suspicious, enqueued: &enqueued, requestID: requestID)
        metrics.record(outcome.metric)
        return outcome
    }

    private func verify(
        _ scan: DoorScan, at: Date?, adjusted: ScanTime.Adjustment?, scanner: String, suspicious: inout SuspiciousScans,
        enqueued: inout Int, requestID: String
    ) throws -> ScanOutcome {
        guard let passType = passes.passType else { return .unknown }
        var scan = scan
        if let onlyEvent { scan.eventID = onlyEvent }
        let serial: SerialNumber
        let unsigned: Bool
        switch try identify(scan, passType: passType, suspicious: &suspicious) {
        case .refused(let outcome): return outcome
        case .ticket(let found, let plain): (serial, unsigned) = (found, plain)
        }
        let checkCode = try passes.vault.checkCode(passType: passType, serial: serial)
        let time = now()
        let hours = hours
        let outcome = try store.withSession(.write) { session -> Door in
            // The event's day first: a ticket of an event that is over is refused whether or not
            // it was checked in (a cancelled one is answered as cancelled).
            let found = try session.passes.passWithEvent(passTypeIdentifier: passType, serialNumber: serial)
            // A door for one event says nothing more about another event's ticket.
            if let onlyEvent, let found, found.pass.eventID != onlyEvent { return .otherEvent }
            if let found, found.pass.status != .cancelled, let closed = hours.closed(found.event, at: at ?? time) {
                return .closed(found.pass, closed)
            }
            return .scanned(
                try session.checkIns.checkIn(
                    Scan(passTypeIdentifier: passType, serialNumber: serial, scannedAt: at ?? time, gate: scan.gate, scanner: scanner), now: time
                )
            )
        }
        switch outcome {
        case .otherEvent:
            return .otherEvent
        case .closed(let pass, let closed):
            let ticket = ScannedTicket(pass: pass, record: nil, unsigned: unsigned, checkCode: checkCode)
            switch closed {
            case .archived: return .eventArchived(ticket)
            case .ended(let end): return .eventEnded(ticket, endedAt: end)
            }
        case .scanned(.notFound):
            return .unknown
        case .scanned(.checkedIn(let pass, let record, let pushes)):
            enqueued += pushes
            logger.info("ticket checked in", [
                "pass.serial": pass.serialNumber.rawValue, "revision": "\(pass.revision)", "pushes": "\(pushes)", "checkin.gate": record.gate ?? "",
                "unsigned": "\(unsigned)", "request.id": requestID,
            ])
            // The store took a time before the ticket was issued as now.
            let beforeIssue = adjusted == nil && at.map { $0 < pass.createdAt } == true
            let taken = beforeIssue ? at.map { ScanTime.Adjustment(sent: $0, reason: .beforeIssue) } : adjusted
            return .admitted(ScannedTicket(pass: pass, record: record, unsigned: unsigned, checkCode: checkCode), adjusted: taken)
        case .scanned(.alreadyCheckedIn(let pass, let record)):
            return .alreadyCheckedIn(ScannedTicket(pass: pass, record: record, unsigned: unsigned, checkCode: checkCode))
        case .scanned(.cancelled(let pass)):
            return .cancelled(ScannedTicket(pass: pass, record: nil, unsigned: unsigned, checkCode: checkCode))
        }
    }

    /// What the door's transaction found: the event is over, or the check-in's own outcome.
    private enum Door {
        case otherEvent
        case closed(StoredPass, DoorHours.Closed)
        case scanned(CheckInOutcome)
    }

    private enum Identified {
        /// The ticket with this serial, `unsigned` for a bare serial accepted.
        case ticket(SerialNumber, unsigned: Bool)
        /// No ticket to check in: the answer.
        case refused(ScanOutcome)
    }

    /// The ticket a scan names: a typed check code among the chosen event's tickets, else the
    /// barcode's code (`serial~mac`, verified) or an accepted bare serial.
    ///
    /// A text in the form of a check code with an event chosen is looked up first; when no ticket
    /// of that event has it, it is read as scanned, so an old serial-only code that happens to
    /// look like one still works (a check code read as a serial finds no ticket: unknown).
    private func identify(_ scan: DoorScan, passType: PassTypeIdentifier, suspicious: inout SuspiciousScans) throws -> Identified {
        if let eventID = scan.eventID, let typed = CheckInCode.typedCheckCode(scan.code) {
            let matches = try checkCodeMatches(typed, eventID: eventID, passType: passType)
            if matches.count > 1 { return .refused(.ambiguousCheckCode) }
            if let serial = matches.first { return .ticket(serial, unsigned: false) }
        }
        switch CheckInCode.parse(scan.code) {
        case .malformed:
            return .refused(.unknown)
        case .unsigned(let plain):
            switch try bareSerial(plain, passType: passType) {
            case .noTicket:
                return .refused(.unknown)
            case .refused:
                suspicious.note(scan, serial: plain, forged: false)
                return .refused(.signatureRequired)
            case .accepted:
                return .ticket(plain, unsigned: true)
            }
        case .signed(let signed, let mac):
            guard try passes.vault.verifiesBarcode(passType: passType, serial: signed, mac: mac) else {
                suspicious.note(scan, serial: signed, forged: true)
                return .refused(.forged)
            }
            return .ticket(signed, unsigned: false)
        }
    }

    /// The tickets of `eventID` whose check code is `code` (`XXXX-XXXX`): every ticket's code is
    /// derived from its serial (one HMAC each; nothing is stored), so this reads the event's serials
    /// and compares: about 0.1 s for an event of 10,000 tickets (BENCHMARKS.md), fine for a code
    /// typed by hand.
    private func checkCodeMatches(_ code: String, eventID: String, passType: PassTypeIdentifier) throws -> [SerialNumber] {
        let serials = try store.withSession(.read) { try $0.checkIns.serialNumbers(eventID: eventID, passTypeIdentifier: passType) }
        var matches: [SerialNumber] = []
        for serial in serials where try passes.vault.checkCode(passType: passType, serial: serial) == code {
            matches.append(serial)
        }
        return matches
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
            guard let pass = try session.passes.pass(passTypeIdentifier: passType, serialNumber: serial) else { return (nil, nil, nil) }
            return (pass, try session.checkIns.signedBarcodesSince(), try pass.eventID.flatMap { try session.events.event(id: $0) })
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
}

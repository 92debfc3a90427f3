import Foundation
import Logging
import PassIdentifiers
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The door as a typed operation, called directly on both backends: every `ScanOutcome`, the
/// batch's scan order and its adjusted times, the count and the undo, the metrics and the log.
@Suite("Check-in: the desk", .offCooperativePool, .timeLimit(.minutes(3)))
struct CheckInDeskTests {
    /// A desk over a test app's store and passes, with its own metrics and log.
    struct Door {
        let app: TestApp
        let desk: CheckInDesk
        let logs = MemorySink()
        let metrics = CheckInMetrics()
        let wakes = CallCounter()

        init(_ backend: Backend) throws {
            app = try TestApp.start(backend)
            let wakes = self.wakes
            desk = CheckInDesk(
                store: app.store, passes: app.application.passes, logger: Logger(label: "door", sink: logs), metrics: metrics,
                warnings: ScanWarnings(), pushesEnqueued: { wakes.increment() }
            )
        }

        func code(_ serial: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            let serialNumber = try #require(SerialNumber(serial), "\(serial) is a serial number", sourceLocation: sourceLocation)
            return try app.application.passes.vault.barcode(passType: app.passType, serial: serialNumber).message
        }

        func scan(_ code: String, gate: String? = nil, at: Date? = nil) throws -> ScanOutcome {
            try desk.scan(DoorScan(code: code, gate: gate, scannedAt: at), scanner: "north door", requestID: "req-1")
        }

        func count(_ name: CheckInMetrics.Result) -> Int {
            metrics.snapshot.first { $0.result == name }?.count ?? -1
        }
    }

    @Test("admitted, then already checked in with the first check-in; undo lets the ticket in again; the count follows", arguments: Backend.allCases)
    func admittedTwiceAndUndo(backend: Backend) throws {
        let door = try Door(backend)
        defer { door.app.stop() }
        let event = try door.app.createEvent()
        let serial = try door.app.issueTicket(event: event, attendee: "Ada Lovelace", seat: "A1")
        _ = try door.app.issueTicket(event: event, attendee: "Grace Hopper")
        let code = try door.code(serial)
        try Scanner.backdate(door.app, by: 3_600)
        let at = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 300).rounded(.down))

        guard case .admitted(let ticket, let adjusted) = try door.scan(code, gate: "North", at: at) else {
            Issue.record("the first scan was not admitted")
            return
        }
        #expect(adjusted == nil)
        #expect(ticket.pass.serialNumber.rawValue == serial)
        #expect(ticket.pass.attendeeName == "Ada Lovelace")
        #expect(ticket.pass.checkedInAt == at)
        #expect(ticket.record?.checkedInAt == at)
        #expect(ticket.record?.gate == "North")
        #expect(ticket.record?.scanner == "north door")
        #expect(ticket.unsigned == false)
        #expect(ticket.checkCode.utf8.count == 9)
        let storedEvent = try #require(try door.app.store.withSession(.read) { try $0.events.event(id: event) })
        #expect(try door.desk.count(storedEvent) == CheckInCount(eventID: event, checkedIn: 1, total: 2))

        guard case .alreadyCheckedIn(let again) = try door.scan(code, gate: "South") else {
            Issue.record("the second scan was not refused as already checked in")
            return
        }
        #expect(again.record?.checkedInAt == at)
        #expect(again.record?.gate == "North")
        #expect(again.checkCode == ticket.checkCode)

        let undone = try door.desk.undo(ticket.pass, by: "admin", requestID: "req-2")
        #expect(undone.checkedInAt == nil)
        #expect(undone.revision > ticket.pass.revision)
        #expect(door.logs.lines.contains { $0.contains("check-in undone") && $0.contains("request.id=req-2") }, "\(door.logs.lines)")
        #expect(try door.desk.count(storedEvent).checkedIn == 0)
        // Undoing again changes nothing.
        #expect(try door.desk.undo(undone, by: "admin", requestID: "req-3").revision == undone.revision)
        guard case .admitted(let readmitted, _) = try door.scan(code, gate: "South") else {
            Issue.record("the scan after the undo was not admitted")
            return
        }
        #expect(readmitted.record?.gate == "South")
        #expect(door.count(.checkedIn) == 2)
        #expect(door.count(.alreadyCheckedIn) == 1)
        // No phone holds the pass: nothing was enqueued, the dispatcher is not woken.
        #expect(door.wakes.count == 0)
    }

    @Test("cancelled with its reason, unknown, forged (logged), signature required, and a legacy serial admitted unsigned", arguments: Backend.allCases)
    func refusals(backend: Backend) throws {
        let door = try Door(backend)
        defer { door.app.stop() }
        let event = try door.app.createEvent()
        let serial = try door.app.issueTicket(event: event)
        let other = try door.app.issueTicket(event: event, attendee: "Grace Hopper")
        let cancelled = try door.app.issueTicket(event: event, attendee: "Alan Turing")
        let legacy = try door.app.issueTicket(event: event, attendee: "Old Pass")
        try Scanner.makeLegacy(door.app, legacy)
        #expect(try door.app.admin("POST", "/admin/v1/tickets/\(cancelled)/cancel", json: #"{"reason":"refunded"}"#).status == 200)

        guard case .cancelled(let refused) = try door.scan(try door.code(cancelled)) else {
            Issue.record("a cancelled ticket was not refused as cancelled")
            return
        }
        #expect(refused.pass.cancellationReason == "refunded")
        #expect(refused.record == nil)

        #expect(try door.scan("not a code at all ~~") == .unknown)
        #expect(try door.scan("") == .unknown)
        #expect(try door.scan("AAAAAAAAAAAAAAAAAAAA") == .unknown, "a serial no ticket has")

        let borrowed = serial + "~" + (try door.code(other)).split(separator: "~")[1]
        #expect(try door.scan(borrowed, gate: "West") == .forged)
        #expect(
            door.logs.lines.contains { $0.contains("forged ticket code scanned") && $0.contains("pass.serial=\(serial)") && $0.contains("req-1") },
            "\(door.logs.lines)"
        )

        #expect(try door.scan(serial) == .signatureRequired)
        #expect(door.logs.lines.contains { $0.contains("bare serial of a signed ticket scanned") }, "\(door.logs.lines)")

        guard case .admitted(let old, _) = try door.scan(legacy) else {
            Issue.record("a pass issued before barcodes were signed was not admitted by its serial")
            return
        }
        #expect(old.unsigned)
        #expect(old.pass.serialNumber.rawValue == legacy)

        #expect(door.count(.cancelled) == 1)
        #expect(door.count(.unknown) == 3)
        #expect(door.count(.forged) == 1)
        #expect(door.count(.signatureRequired) == 1)
        #expect(door.count(.checkedIn) == 1)
        #expect(ScanOutcome.forged.ticket == nil && ScanOutcome.signatureRequired.ticket == nil)
    }

    @Test("a batch: outcomes in the order sent, applied in scan order, times out of bounds taken as now and said so", arguments: Backend.allCases)
    func batch(backend: Backend) throws {
        let door = try Door(backend)
        defer { door.app.stop() }
        let event = try door.app.createEvent()
        let serials = try Scanner.issue(5, app: door.app, event: event)
        try Scanner.backdate(door.app, by: 7_200)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let codes = try serials.map { try door.code($0) }
        let early = now.addingTimeInterval(-1_800)
        let late = now.addingTimeInterval(-600)
        let scans = [
            // The same ticket twice: sent late first, the earlier scan admits it.
            DoorScan(code: codes[0], gate: "Late", scannedAt: late),
            DoorScan(code: codes[0], gate: "Early", scannedAt: early),
            DoorScan(code: codes[1], gate: "Ahead", scannedAt: now.addingTimeInterval(ScanTime.clockSkew + 3_600)),
            DoorScan(code: codes[2], gate: "Stale", scannedAt: now.addingTimeInterval(-ScanTime.maxAge - 3_600)),
            DoorScan(code: codes[3], gate: "Before", scannedAt: now.addingTimeInterval(-86_400)),
            DoorScan(code: "nobody's", gate: "X", scannedAt: late),
        ]
        let outcomes = try door.desk.scan(batch: scans, scanner: "offline", requestID: "req-batch")
        #expect(outcomes.count == scans.count)
        guard outcomes.count == scans.count else { return }

        guard case .alreadyCheckedIn(let duplicate) = outcomes[0], case .admitted(let first, let firstAdjusted) = outcomes[1] else {
            Issue.record("the earlier scan of the batch did not admit the ticket: \(outcomes[0]), \(outcomes[1])")
            return
        }
        #expect(firstAdjusted == nil)
        #expect(first.record?.gate == "Early" && first.record?.checkedInAt == early)
        #expect(duplicate.record?.gate == "Early")

        guard case .admitted(let ahead, let aheadAdjusted) = outcomes[2], case .admitted(let stale, let staleAdjusted) = outcomes[3],
            case .admitted(_, let beforeAdjusted) = outcomes[4]
        else {
            Issue.record("scans with times out of bounds were not admitted: \(outcomes[2...4])")
            return
        }
        #expect(aheadAdjusted?.reason == .ahead)
        #expect(aheadAdjusted?.sent == scans[2].scannedAt)
        #expect(staleAdjusted?.reason == .tooOld)
        #expect(beforeAdjusted?.reason == .beforeIssue)
        #expect(beforeAdjusted?.sent == scans[4].scannedAt)
        // Taken as now: after every scan that was in bounds.
        for admitted in [ahead, stale] {
            let at = try #require(admitted.record?.checkedInAt)
            #expect(at >= now && at < now.addingTimeInterval(120), "\(at)")
        }
        #expect(outcomes[5] == .unknown)
        let storedEvent = try #require(try door.app.store.withSession(.read) { try $0.events.event(id: event) })
        #expect(try door.desk.count(storedEvent) == CheckInCount(eventID: event, checkedIn: 4, total: 5))
    }

    @Test("the time a scan counts as made")
    func scanTime() {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let unsent = ScanTime.effective(nil, now: now)
        #expect(unsent.at == nil && unsent.adjusted == nil)
        let inBounds = ScanTime.effective(now.addingTimeInterval(-3_600), now: now)
        #expect(inBounds.at == now.addingTimeInterval(-3_600) && inBounds.adjusted == nil)
        let skewed = ScanTime.effective(now.addingTimeInterval(ScanTime.clockSkew - 1), now: now)
        #expect(skewed.adjusted == nil)
        let ahead = ScanTime.effective(now.addingTimeInterval(ScanTime.clockSkew + 1), now: now)
        #expect(ahead.at == now && ahead.adjusted?.reason == .ahead)
        let old = ScanTime.effective(now.addingTimeInterval(-ScanTime.maxAge - 1), now: now)
        #expect(old.at == now && old.adjusted?.reason == .tooOld)
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// What a hostile scanner or attendee can try at the door, over real HTTP on both backends: a
/// bare serial of a signed ticket, offline scans dated anywhere, a batch rewriting a check-in,
/// and floods of forged codes in the log.
@Suite("Check-in: bare serials, offline times, no rewrites, log volume", .offCooperativePool, .timeLimit(.minutes(4)))
struct CheckInDoorTests {
    @Test("the bare serial of a signed ticket is refused (API, batch, scanner page); a ticket issued before signed codes gets in unsigned", arguments: Backend.allCases)
    func bareSerials(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let scanner = try Scanner(app)
        let event = try app.createEvent()
        let signed = try app.issueTicket(event: event, attendee: "Ada Lovelace")
        let legacy = try app.issueTicket(event: event, attendee: "Old Timer")
        let legacyInBatch = try app.issueTicket(event: event, attendee: "Old Batch")
        try Scanner.makeLegacy(app, legacy)
        try Scanner.makeLegacy(app, legacyInBatch)

        // The admin API: 422 with a message for the door, nothing about the ticket.
        let refused = try scanner.scan(signed, gate: "North")
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.errorCode == "signature_required")
        #expect(refused.jsonObject?["result"] as? String == "signature_required")
        let message = try #require((refused.jsonObject?["error"] as? [String: Any])?["message"] as? String)
        #expect(message.contains("scan the QR code on the pass"))
        #expect(refused.jsonObject?["attendeeName"] == nil && refused.jsonObject?["ticket"] == nil && !refused.text.contains("Ada"))
        // Surrounding white space (a wedge scanner's Enter) changes nothing.
        #expect(try scanner.scan(signed + "\n").status == 422)

        // An offline batch: refused per scan, the legacy ticket in the same batch let in.
        let at = Date().addingTimeInterval(-60)
        let batch = try scanner.batch([(signed, "North", at), (legacyInBatch, "North", at)])
        #expect(batch.status == 200, "\(batch.text)")
        let results = try #require(batch.jsonObject?["results"] as? [[String: Any]])
        #expect(results.map { $0["result"] as? String ?? "?" } == ["signature_required", "checked_in"])
        #expect(results.map { $0["status"] as? Int ?? 0 } == [422, 200])
        #expect(results[1]["unsigned"] as? Bool == true)
        #expect(results[0]["attendeeName"] == nil)
        #expect(batch.jsonObject?["counts"] as? [String: Int] == ["signature_required": 1, "checked_in": 1])

        // The scanner page's call, through a session.
        let (client, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .scanner))
        let csrf = try client.csrf(on: "/admin/scan")
        let page = try client.json("POST", "/admin/scan/checkins", #"{"code":\#(Scanner.quoted(signed))}"#, csrf: csrf)
        #expect(page.status == 422, "\(page.text)")
        #expect(page.errorCode == "signature_required")
        // The page shows it in red words of its own.
        let script = try app.request("GET", "/assets/scanner.js").text
        #expect(script.contains(#"body.result === "signature_required""#) && script.contains(#""Serial number only""#))

        #expect(try app.admin("GET", "/admin/v1/tickets/\(signed)").jsonObject?["checkedInAt"] == nil, "no refusal checked the ticket in")
        // Controls: the legacy ticket's bare serial, and the signed ticket's own code.
        let old = try scanner.scan(legacy)
        #expect(old.status == 200, "\(old.text)")
        #expect(old.jsonObject?["unsigned"] as? Bool == true)
        #expect(old.jsonObject?["attendeeName"] as? String == "Old Timer")
        let genuine = try scanner.scan(try scanner.code(signed))
        #expect(genuine.status == 200)
        #expect(genuine.jsonObject?["unsigned"] as? Bool == false)

        let metrics = try app.request("GET", "/metrics").text
        #expect(metrics.contains(#"passserver_checkins_total{result="signature_required"} 4"#))
        let warnings = app.logs.lines.filter { $0.contains("bare serial") && $0.contains(signed) }
        #expect(warnings.count == 4, "one line per request: \(warnings.count)")
    }

    @Test("a template that puts no signed code in its barcode: its tickets' bare serials are accepted, the default template's are not", arguments: Backend.allCases)
    func templateWithoutSignedCode(backend: Backend) throws {
        let passes = try OrganizerSupport.passesDirectory()
        let original = passes + "/event-ticket"
        try FileManager.default.copyItem(atPath: original, toPath: passes + "/serial-ticket")
        let definition = try String(contentsOfFile: original + "/pass.json", encoding: .utf8)
        #expect(definition.contains("{{barcodeMessage}}"))
        try definition.replacingOccurrences(of: "{{barcodeMessage}}", with: "{{serialNumber}}")
            .write(toFile: passes + "/serial-ticket/pass.json", atomically: true, encoding: .utf8)
        let app = try TestApp.start(backend) { $0.passesDirectory = passes }
        defer { app.stop() }
        let scanner = try Scanner(app)
        let plain = try app.issueTicket(event: try OrganizerSupport.createEvent(app, template: "serial-ticket"), attendee: "Plain Code")
        let signed = try app.issueTicket(event: try OrganizerSupport.createEvent(app), attendee: "Signed Code")

        let accepted = try scanner.scan(plain)
        #expect(accepted.status == 200, "\(accepted.text)")
        #expect(accepted.jsonObject?["unsigned"] as? Bool == true)
        #expect(try scanner.scan(signed).status == 422)
    }

    @Test("offline times are bounded: 1970, two days old, before the ticket, an hour ahead all count as received, with the reason; a time within bounds is kept", arguments: Backend.allCases)
    func offlineTimesBounded(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let scanner = try Scanner(app)
        let event = try app.createEvent()
        let old = try Scanner.issue(4, app: app, event: event)
        // Issued three days ago; one more issued now.
        try Scanner.backdate(app, by: 3 * 86_400)
        let fresh = try app.issueTicket(event: event)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let epoch = Date(timeIntervalSince1970: 0)
        let sent: [(code: String, gate: String, at: Date)] = [
            (try scanner.code(old[0]), "Epoch", epoch),
            (try scanner.code(old[1]), "Stale", now.addingTimeInterval(-AdminController.maxScanAge - 3_600)),
            (try scanner.code(old[2]), "Kept", now.addingTimeInterval(-3_600)),
            (try scanner.code(old[3]), "Ahead", now.addingTimeInterval(3_600)),
            (try scanner.code(fresh), "Early", now.addingTimeInterval(-3_600)),
            // A second scan of the kept ticket dated 1970 would be the earliest: it counts as now,
            // after the real one, and changes nothing.
            (try scanner.code(old[2]), "Backdated", epoch),
        ]
        let before = Date().addingTimeInterval(-1)
        let answer = try scanner.batch(sent)
        let after = Date().addingTimeInterval(1)
        let results = try #require(answer.jsonObject?["results"] as? [[String: Any]], "\(answer.status) \(answer.text)")
        #expect(results.map { $0["result"] as? String ?? "?" } == ["checked_in", "checked_in", "checked_in", "checked_in", "checked_in", "already_checked_in"])
        let reasons = results.map { ($0["scannedAtAdjusted"] as? [String: Any])?["reason"] as? String ?? "-" }
        #expect(reasons == ["too_old", "too_old", "-", "ahead", "before_issue", "-"])
        for index in [0, 1, 3, 4] {
            let adjusted = try #require(results[index]["scannedAtAdjusted"] as? [String: Any])
            #expect(adjusted["sent"] as? String == ISODate.format(sent[index].at), "scan \(index) says what it sent")
            let recorded = try #require((results[index]["checkedInAt"] as? String).flatMap(ISODate.parse))
            #expect(recorded >= before && recorded <= after, "scan \(index) counts as received: \(recorded)")
        }
        #expect(results[2]["checkedInAt"] as? String == ISODate.format(sent[2].at), "a time within bounds is kept")
        #expect(results[5]["checkedInAt"] as? String == ISODate.format(sent[2].at))
        #expect(results[5]["gate"] as? String == "Kept")
        let stored = try app.store.execute("SELECT min(checked_in_at) AS first FROM checkins").first?.int64("first")
        #expect(stored.map { Date(timeIntervalSince1970: Double($0) / 1_000) } == sent[2].at, "nothing is recorded before the kept scan")

        // A single online scan is bounded alike.
        let single = try app.issueTicket(event: event)
        let online = try scanner.scan(try scanner.code(single), at: "1970-01-01T00:00:00Z")
        #expect(online.status == 200)
        #expect((online.jsonObject?["scannedAtAdjusted"] as? [String: Any])?["reason"] as? String == "too_old")
    }

    @Test("a batch arriving later never rewrites a check-in (time, gate, scanner); within a batch the earliest scan wins", arguments: Backend.allCases)
    func batchNeverRewrites(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let online = try Scanner(app)
        let offline = try Scanner(app)
        let event = try app.createEvent()
        let serials = try Scanner.issue(2, app: app, event: event)
        try Scanner.backdate(app, by: 3_600)
        let base = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 600).rounded(.down))

        // Two scans of one ticket in a batch, sent latest first: the earlier one checks it in.
        let code = try offline.code(serials[0])
        let outOfOrder = try offline.batch([(code, "Late", base.addingTimeInterval(60)), (code, "Early", base)])
        let results = try #require(outOfOrder.jsonObject?["results"] as? [[String: Any]])
        #expect(results.map { $0["result"] as? String ?? "?" } == ["already_checked_in", "checked_in"])
        #expect(results.map { $0["gate"] as? String ?? "?" } == ["Early", "Early"])
        #expect(results.map { $0["checkedInAt"] as? String ?? "?" } == [ISODate.format(base), ISODate.format(base)])

        // Checked in online now; an offline scan from ten minutes before arrives later.
        let other = try online.code(serials[1])
        let first = try online.scan(other, gate: "Online")
        #expect(first.status == 200)
        let firstTime = try #require(first.jsonObject?["checkedInAt"] as? String)
        let row = { () throws -> [String] in
            let found = try app.store.execute("SELECT c.checked_in_at, c.gate, c.scanner FROM checkins c JOIN passes p ON p.id = c.pass_id WHERE p.serial_number = \(serials[1])")
            return try found.map { "\(try $0.int64("checked_in_at")) \(try $0.optionalString("gate") ?? "-") \(try $0.optionalString("scanner") ?? "-")" }
        }
        let recorded = try row()
        #expect(recorded.count == 1)
        let late = try offline.batch([(other, "Offline", base)])
        let result = try #require((late.jsonObject?["results"] as? [[String: Any]])?.first)
        #expect(result["result"] as? String == "already_checked_in")
        #expect(result["status"] as? Int == 409)
        #expect(result["gate"] as? String == "Online")
        #expect(result["checkedInAt"] as? String == firstTime)
        #expect(result["superseded"] == nil)
        #expect(try row() == recorded, "the check-in's row is as the online scan wrote it")
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serials[1])").jsonObject?["checkedInAt"] as? String == firstTime)
        // A single online scan never moves a check-in either.
        #expect(try online.scan(other, gate: "Again", at: ISODate.format(base.addingTimeInterval(-60))).status == 409)
        #expect(try row() == recorded)
    }

    @Test("1,000 forged codes and bare serials in one batch write one warning line with counts and escaped samples; single scans are rate limited", arguments: Backend.allCases)
    func forgedFloodIsSummarized(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let scanner = try Scanner(app)
        let event = try app.createEvent()
        let signed = try app.issueTicket(event: event)
        let genuine = try app.issueTicket(event: event)
        let forged = (0..<995).map { (code: "FORGED-\($0)~AAAAAAAAAAAAAAAA", gate: "North\u{202E}evil", at: Date()) }
        let bare = (0..<4).map { _ in (code: signed, gate: "North\u{202E}evil", at: Date()) }
        let real = [(code: try scanner.code(genuine), gate: "North\u{202E}evil", at: Date())]
        let answer = try scanner.batch(forged + bare + real)
        #expect(answer.status == 200, "\(answer.text.prefix(300))")
        #expect(answer.jsonObject?["counts"] as? [String: Int] == ["unknown_code": 995, "signature_required": 4, "checked_in": 1])

        let lines = app.logs.lines.filter { $0.contains("FORGED-") || $0.contains("bare serial") || $0.contains("forged") }
        #expect(lines.count == 1, "one line for the batch, not one per scan: \(lines.count)")
        let line = try #require(lines.first)
        #expect(line.contains("checkin.forged=995") && line.contains("checkin.unsigned=4") && line.contains("checkin.scans=1000"))
        #expect(line.contains("FORGED-0~") && line.contains("FORGED-2~") && !line.contains("FORGED-3~"), "three samples")
        #expect(line.contains("North\\u202Eevil") && !line.contains("\u{202E}"), "the scanner's text is escaped")
        #expect(line.contains("checkin.sample.3="))
        let metrics = try app.request("GET", "/metrics").text
        #expect(metrics.contains(#"passserver_checkins_total{result="forged"} 995"#), "the metrics count every scan")

        // One forged code per request: at most `linesPerMinute` lines a minute (two minutes at
        // most while these run), not one per request.
        for index in 0..<25 {
            #expect(try scanner.scan("SINGLE-\(index)~AAAAAAAAAAAAAAAA").status == 404)
        }
        let singles = app.logs.lines.filter { $0.contains("forged ticket code scanned") }
        #expect(singles.count >= ScanWarnings.linesPerMinute - 1 && singles.count <= 2 * ScanWarnings.linesPerMinute, "\(singles.count) lines")
        #expect(singles.first?.contains("SINGLE-0~") == true)
    }

    @Test("the warning limiter: ten lines a minute per scanner, the rest counted and reported with the next line")
    func warningLimiter() {
        let warnings = ScanWarnings()
        let minute = Date(timeIntervalSince1970: 60 * 1_000_000)
        let admitted = (0..<12).map { warnings.admit(scanner: "door", scans: 5, now: minute.addingTimeInterval(Double($0))) }
        #expect(admitted.prefix(10).allSatisfy { $0 == 0 })
        #expect(admitted.suffix(2).allSatisfy { $0 == nil })
        // Another scanner has its own lines.
        #expect(warnings.admit(scanner: "other", scans: 1, now: minute) == 0)
        // The next minute: a line again, telling the 10 scans that went unlogged.
        #expect(warnings.admit(scanner: "door", scans: 1, now: minute.addingTimeInterval(60)) == 10)
        #expect(warnings.admit(scanner: "door", scans: 1, now: minute.addingTimeInterval(61)) == 0)
    }
}

import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The scanner API over real HTTP on both backends: first scan, second scan, forged, unknown,
/// unsigned and cancelled codes, the running count, undo, and the metrics.
@Suite("Check-in: scanner API", .offCooperativePool, .timeLimit(.minutes(3)))
struct CheckInTests {
    @Test("first scan 200, second 409 with the first time and gate; undo lets the ticket in again", arguments: Backend.allCases)
    func firstAndSecondScan(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let scanner = try Scanner(app)
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event, attendee: "Ada Lovelace", seat: "A1")
        let code = try scanner.code(serial)
        #expect(code.hasPrefix(serial + "~") && code.utf8.count == serial.utf8.count + 17)

        // Issued an hour ago; scanned five minutes ago, the time sent in the venue's zone.
        try Scanner.backdate(app, by: 3_600)
        let at = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 300).rounded(.down))
        let first = try scanner.scan(code, gate: "North", at: ISODate.format(at, timeZone: "Asia/Tokyo"))
        #expect(first.status == 200, "\(first.text)")
        let body = try #require(first.jsonObject)
        #expect(body["result"] as? String == "checked_in")
        #expect(body["ticket"] as? String == serial)
        #expect(body["attendeeName"] as? String == "Ada Lovelace")
        #expect(body["seat"] as? String == "A1")
        #expect(body["checkedInAt"] as? String == ISODate.format(at))
        #expect(body["gate"] as? String == "North")
        #expect(body["unsigned"] as? Bool == false)
        #expect((body["checkCode"] as? String)?.utf8.count == 9)
        #expect(body["error"] == nil)

        let second = try scanner.scan(code, gate: "South")
        #expect(second.status == 409)
        #expect(second.errorCode == "already_checked_in")
        #expect(second.jsonObject?["result"] as? String == "already_checked_in")
        #expect(second.jsonObject?["checkedInAt"] as? String == ISODate.format(at))
        #expect(second.jsonObject?["gate"] as? String == "North")
        #expect(second.jsonObject?["attendeeName"] as? String == "Ada Lovelace")

        let ticket = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        #expect(ticket["checkedInAt"] as? String == ISODate.format(at))
        let revision = try #require(ticket["revision"] as? Int)

        // A scanner token may not undo, nor read the ticket; an admin may undo.
        #expect(try app.request("DELETE", "/admin/v1/tickets/\(serial)/checkin", headers: scanner.headers).status == 403)
        #expect(try app.request("GET", "/admin/v1/tickets/\(serial)", headers: scanner.headers).status == 403)
        let undone = try app.admin("DELETE", "/admin/v1/tickets/\(serial)/checkin")
        #expect(undone.status == 200)
        #expect(undone.jsonObject?["checkedInAt"] == nil)
        let undoneRevision = try #require(undone.jsonObject?["revision"] as? Int)
        #expect(undoneRevision > revision)
        // Undoing again changes nothing.
        #expect(try app.admin("DELETE", "/admin/v1/tickets/\(serial)/checkin").jsonObject?["revision"] as? Int == undoneRevision)
        let again = try scanner.scan(code, gate: "South")
        #expect(again.status == 200)
        #expect(again.jsonObject?["gate"] as? String == "South")
    }

    @Test("a forged code is 404 and logged (escaped); unknown and malformed codes 404; the bare serial of a signed ticket is 422", arguments: Backend.allCases)
    func forgedUnknownUnsigned(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let scanner = try Scanner(app)
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let other = try app.issueTicket(event: event, attendee: "Grace Hopper")
        let genuine = try scanner.code(serial)

        // A valid serial with another ticket's signature, and with a signature of the right shape.
        let borrowed = serial + "~" + (try scanner.code(other)).split(separator: "~")[1]
        let madeUp = serial + "~AAAAAAAAAAAAAAAA"
        for forged in [borrowed, madeUp] {
            let answer = try scanner.scan(forged, gate: "North\u{202E}evil \"x=1\"")
            #expect(answer.status == 404, "\(answer.text)")
            #expect(answer.errorCode == "unknown_code")
            #expect(answer.jsonObject?["ticket"] == nil, "a forged code reveals nothing about the ticket")
        }
        let logged = app.logs.lines.filter { $0.contains("forged ticket code scanned") }
        #expect(logged.count == 2)
        // The gate is the scanner's text: its bidirectional override is escaped, not written raw.
        #expect(logged.allSatisfy { $0.contains(serial) && $0.contains("North\\u202Eevil") && !$0.contains("\u{202E}") })
        #expect(logged.contains { $0.contains(madeUp) })

        // The forgeries checked nothing in: the genuine code still lets the holder in.
        #expect(try scanner.scan(genuine).status == 200)

        let unknownSerial = try scanner.scan("NoSuchSerial0000000")
        #expect(unknownSerial.status == 404)
        #expect(unknownSerial.errorCode == "unknown_code")
        #expect(try scanner.scan(String(repeating: "x", count: 257)).status == 400, "longer than any code: refused unread")
        #expect(try scanner.scan("  ").status == 404, "blank: no ticket's code")
        for malformed in ["a~b~c", "~", serial + "~short", "<script>", String(repeating: "x", count: 256)] {
            let answer = try scanner.scan(malformed)
            #expect(answer.status == 404, "\(malformed.prefix(20)): \(answer.status) \(answer.text)")
        }
        #expect(!app.logs.lines.contains { $0.contains("forged") && $0.contains("<script>") }, "only signed codes of real serials count as forged")

        let bare = try scanner.scan(other)
        #expect(bare.status == 422, "\(bare.text)")
        #expect(bare.errorCode == "signature_required")
        #expect(bare.jsonObject?["attendeeName"] == nil, "a refused bare serial reveals nothing about the ticket")
        #expect(try scanner.scan(try scanner.code(other)).status == 200, "the refusal checked nothing in")

        let bad = try app.request("POST", "/admin/v1/checkins", headers: scanner.headers, body: Array(#"{"code":"x","colour":1,"scannedAt":"yesterday"}"#.utf8))
        #expect(bad.status == 400)
        #expect(bad.errorCode == "invalid_fields")
        #expect(bad.text.contains("colour") && bad.text.contains("scannedAt"))
        // A scanner whose clock runs an hour ahead: the scan counts as made now.
        let other2 = try app.issueTicket(event: event, attendee: "Katherine Johnson")
        let before = Date().addingTimeInterval(-1)
        let future = try scanner.scan(try scanner.code(other2), at: ISODate.format(Date().addingTimeInterval(3_600)))
        #expect(future.status == 200)
        let recordedText = try #require(future.jsonObject?["checkedInAt"] as? String)
        let recorded = try #require(ISODate.parse(recordedText))
        #expect(recorded >= before && recorded <= Date().addingTimeInterval(1))
        // Control characters in a code are no ticket's code: 404, not a refusal of the request.
        #expect(try scanner.scan("\u{0}\u{1B}x").status == 404)
        #expect(try app.request("POST", "/admin/v1/checkins", headers: scanner.headers, body: Array(#"{"code":""}"#.utf8)).status == 400)
    }

    @Test("a cancelled ticket is 410 with the reason, checked in or not", arguments: Backend.allCases)
    func cancelled(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let scanner = try Scanner(app)
        let event = try app.createEvent()
        let fresh = try app.issueTicket(event: event)
        let entered = try app.issueTicket(event: event)
        #expect(try scanner.scan(try scanner.code(entered)).status == 200)
        for serial in [fresh, entered] {
            #expect(try app.admin("POST", "/admin/v1/tickets/\(serial)/cancel", json: #"{"reason":"refunded"}"#).status == 200)
            let answer = try scanner.scan(try scanner.code(serial))
            #expect(answer.status == 410, "\(answer.text)")
            #expect(answer.errorCode == "cancelled")
            #expect(answer.jsonObject?["reason"] as? String == "refunded")
            #expect(answer.jsonObject?["ticket"] as? String == serial)
        }
        let count = try app.request("GET", "/admin/v1/events/\(event)/checkins", headers: scanner.headers)
        #expect(count.jsonObject?["checkedIn"] as? Int == 0, "a cancelled ticket does not count")
        #expect(count.jsonObject?["total"] as? Int == 0)
    }

    @Test("counts: the event's checkedIn, the scanner's running count and /metrics", arguments: Backend.allCases)
    func counts(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let scanner = try Scanner(app)
        let event = try app.createEvent()
        let serials = try (0..<5).map { try app.issueTicket(event: event, attendee: "Guest \($0)") }
        let otherEvent = try app.createEvent(name: "Other")
        let outsider = try app.issueTicket(event: otherEvent)

        let before = try app.request("GET", "/admin/v1/events/\(event)/checkins", headers: scanner.headers)
        #expect(before.status == 200)
        #expect(before.jsonObject?["checkedIn"] as? Int == 0)
        #expect(before.jsonObject?["total"] as? Int == 5)
        for serial in serials.prefix(3) { #expect(try scanner.scan(try scanner.code(serial)).status == 200) }
        #expect(try scanner.scan(try scanner.code(outsider)).status == 200)
        #expect(try scanner.scan(try scanner.code(serials[0])).status == 409)
        #expect(try scanner.scan(serials[4] + "~AAAAAAAAAAAAAAAA").status == 404)

        let count = try app.request("GET", "/admin/v1/events/\(event)/checkins", headers: scanner.headers)
        #expect(count.jsonObject?["checkedIn"] as? Int == 3)
        #expect(count.jsonObject?["total"] as? Int == 5)
        // The scanner reads the count, not the event.
        #expect(try app.request("GET", "/admin/v1/events/\(event)", headers: scanner.headers).status == 403)
        #expect(try app.request("GET", "/admin/v1/events/nosuchevent/checkins", headers: scanner.headers).status == 404)
        let shown = try #require(try app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["counts"] as? [String: Any])
        #expect(shown["checkedIn"] as? Int == 3)
        let listed = try #require(try app.admin("GET", "/admin/v1/events").jsonObject?["events"] as? [[String: Any]])
        let counts = Dictionary(uniqueKeysWithValues: listed.compactMap { item -> (String, Int)? in
            guard let id = item["id"] as? String, let counts = item["counts"] as? [String: Any], let checkedIn = counts["checkedIn"] as? Int else { return nil }
            return (id, checkedIn)
        })
        #expect(counts == [event: 3, otherEvent: 1])

        let metrics = try app.request("GET", "/metrics").text
        #expect(metrics.contains(#"passserver_checkins_total{result="checked_in"} 4"#))
        #expect(metrics.contains(#"passserver_checkins_total{result="already_checked_in"} 1"#))
        #expect(metrics.contains(#"passserver_checkins_total{result="forged"} 1"#))
        #expect(metrics.contains(#"passserver_checkins_total{result="cancelled"} 0"#))
        #expect(metrics.contains("passserver_checked_in_tickets 4"))
    }
}

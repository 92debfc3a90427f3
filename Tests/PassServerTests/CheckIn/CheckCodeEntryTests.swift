import Foundation
import PassIdentifiers
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Typing the check code printed under a ticket's QR code (`3Q3Q-S6MN`) at the door, with the event
/// chosen: the ticket of that event with that code is checked in; a code no ticket of the event has
/// is unknown (a code of another event's ticket too); a code two tickets of the event share is
/// refused as ambiguous.
@Suite("Check-in by typed check code", .offCooperativePool, .timeLimit(.minutes(3)))
struct CheckCodeEntryTests {
    /// Two serials whose check codes are equal under the test apps' `TOKEN_SECRET` (32 bytes of 7)
    /// and pass type: found by a birthday search over `checkcode-twin-N` (the first 40 bits of their
    /// barcode HMACs are cfe8e91c94).
    static let twins = ("checkcode-twin-311827", "checkcode-twin-1358810")

    @Test("how a typed code is read: case, dash, spaces, Crockford's look-alikes; anything else is no check code")
    func typedForms() {
        for typed in ["3Q3Q-S6MN", "3q3q-s6mn", "3Q3QS6MN", "  3q3qs6mn\n", "3Q3Q S6MN", "\t3Q3q-s6Mn "] {
            #expect(CheckInCode.typedCheckCode(typed) == "3Q3Q-S6MN", "\(typed)")
        }
        #expect(CheckInCode.typedCheckCode("o1il-OOLI") == "0111-0011")
        for other in ["", "3Q3Q-S6M", "3Q3Q-S6MNX", "3Q3Q--S6MN", "3Q3-QS6MN", "3Q3Q_S6MN", "3Q3Q-S6MU", "ÅQ3Q-S6MN", "3Q3Q-S6M!", "x5Lr0Qm2V1c8pTzA9bYk"] {
            #expect(CheckInCode.typedCheckCode(other) == nil, "\(other)")
        }
        #expect(CheckInCode.checkCodeSpace == 1_099_511_627_776)
        #expect(Int(pow(32.0, Double(CheckInCode.checkCodeLength))) == CheckInCode.checkCodeSpace)
    }

    @Test("the typed code of the chosen event's ticket checks it in, in any typed form; then it is already checked in", arguments: Backend.allCases)
    func typedCodeChecksIn(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serials = try Scanner.issue(3, app: app, event: event)
        let scanner = try Scanner(app)
        for (index, typed) in try [
            scanner.checkCode(serials[0]), scanner.checkCode(serials[1]).lowercased().replacingOccurrences(of: "-", with: ""),
            "  " + scanner.checkCode(serials[2]).replacingOccurrences(of: "-", with: " ") + "  ",
        ].enumerated() {
            let answer = try scanner.scan(typed, gate: "Box office", event: event)
            #expect(answer.status == 200, "\(typed): \(answer.text)")
            #expect(answer.jsonObject?["result"] as? String == "checked_in")
            #expect(answer.jsonObject?["ticket"] as? String == serials[index])
            #expect(answer.jsonObject?["checkCode"] as? String == (try scanner.checkCode(serials[index])))
            #expect(answer.jsonObject?["unsigned"] as? Bool == false)
        }
        let again = try scanner.scan(try scanner.checkCode(serials[0]), event: event)
        #expect(again.status == 409)
        #expect(again.jsonObject?["gate"] as? String == "Box office")
        // The QR code of a ticket checked in by its typed code is a duplicate too.
        #expect(try scanner.scan(try scanner.code(serials[1])).status == 409)
        #expect(try app.admin("GET", "/admin/v1/events/\(event)/checkins").jsonObject?["checkedIn"] as? Int == 3)
    }

    @Test("a code no ticket of the chosen event has is red: unknown, another event's ticket's, or sent without an event", arguments: Backend.allCases)
    func unknownCodes(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent(name: "Here")
        let other = try app.createEvent(name: "Elsewhere")
        let mine = try app.issueTicket(event: event)
        let theirs = try app.issueTicket(event: other)
        let scanner = try Scanner(app)
        let mineCode = try scanner.checkCode(mine)
        // A code differing in one character from a real one.
        let last = mineCode.last == "Z" ? "Y" : "Z"
        for (typed, eventID) in [
            (try scanner.checkCode(theirs), event), (String(mineCode.dropLast()) + last, event), (mineCode, other), (mineCode, nil),
            ("ZZZZ-ZZZZ", event), (mineCode, "nosuchevent"),
        ] as [(String, String?)] {
            let answer = try scanner.scan(typed, event: eventID)
            #expect(answer.status == 404, "\(typed) for \(eventID ?? "no event"): \(answer.text)")
            #expect(answer.jsonObject?["result"] as? String == "unknown_code")
            #expect(answer.jsonObject?["ticket"] == nil)
        }
        // Nothing was checked in; the other event's ticket checks in with its own event chosen.
        #expect(try app.admin("GET", "/admin/v1/tickets/\(mine)").jsonObject?["checkedInAt"] == nil)
        #expect(try scanner.scan(try scanner.checkCode(theirs), event: other).status == 200)
        // An event id that cannot be one is a 400 naming the field.
        let invalid = try scanner.scan(mineCode, event: "not an id!")
        #expect(invalid.status == 400)
        #expect(invalid.text.contains("eventId"))
    }

    @Test("two tickets of the event with the same check code: the typed code is refused as ambiguous, their QR codes check in", arguments: Backend.allCases)
    func ambiguousCode(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let other = try app.createEvent(name: "Elsewhere")
        let vault = app.application.passes.vault
        let passType = app.passType
        let serials = [Self.twins.0, Self.twins.1].compactMap(SerialNumber.init)
        try #require(serials.count == 2)
        let shared = try vault.checkCode(passType: passType, serial: serials[0])
        try #require(try vault.checkCode(passType: passType, serial: serials[1]) == shared, "the twins' codes differ: \(shared)")
        // One twin in another event: the code is not ambiguous in either.
        try app.store.withSession(.write) { session in
            _ = try session.passes.insertPass(Self.pass(serials[0], event: event, vault: vault, passType: passType), now: Date())
            _ = try session.passes.insertPass(Self.pass(serials[1], event: other, vault: vault, passType: passType), now: Date())
        }
        let scanner = try Scanner(app)
        let first = try scanner.scan(shared, event: event)
        #expect(first.status == 200, "\(first.text)")
        #expect(first.jsonObject?["ticket"] as? String == serials[0].rawValue)
        #expect(try scanner.undoCheckIn(serials[0].rawValue).status == 200)
        // Both in the event: refused, naming neither ticket.
        _ = try app.store.execute("UPDATE passes SET event_id = \(event) WHERE serial_number = \(serials[1].rawValue)")
        let ambiguous = try scanner.scan(shared.lowercased(), event: event)
        #expect(ambiguous.status == 422)
        #expect(ambiguous.jsonObject?["result"] as? String == "ambiguous_code")
        #expect(ambiguous.errorCode == "ambiguous_code")
        #expect(ambiguous.jsonObject?["ticket"] == nil)
        #expect(ambiguous.text.contains("scan the QR code"))
        // Through the scanner page's session as well.
        let (client, _) = try DashboardClient.signIn(app, token: scanner.token)
        let page = try client.json("POST", "/admin/scan/checkins", #"{"code":"\#(shared)","eventId":"\#(event)"}"#, csrf: try client.csrf(on: "/admin/scan"))
        #expect(page.status == 422)
        #expect(page.jsonObject?["result"] as? String == "ambiguous_code")
        // Their QR codes are unambiguous.
        for serial in serials {
            #expect(try scanner.scan(try scanner.code(serial.rawValue)).status == 200)
        }
        let metrics = try app.request("GET", "/metrics").text
        #expect(metrics.contains(#"passserver_checkins_total{result="ambiguous_code"} 2"#), "\(metrics.split(separator: "\n").filter { $0.contains("checkins_total") })")
    }

    static func pass(_ serial: SerialNumber, event: String, vault: TokenVault, passType: PassTypeIdentifier) throws -> NewPass {
        try NewPass(
            passTypeIdentifier: passType, serialNumber: serial,
            authenticationTokenHash: TokenVault.hash(vault.authenticationToken(passType: passType, serial: serial).rawValue),
            downloadTokenHash: TokenVault.hash(vault.downloadToken(passType: passType, serial: serial)), eventID: event, attendeeName: "Twin \(serial)"
        )
    }
}

extension Scanner {
    /// `DELETE /admin/v1/tickets/{serial}/checkin` with the app's admin token.
    func undoCheckIn(_ serial: String) throws -> TestResponse {
        try app.admin("DELETE", "/admin/v1/tickets/\(serial)/checkin")
    }
}

import Foundation
import PassIdentifiers
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Google Wallet end to end against the local fake of Google's API, on both backends: issuing
/// inserts one class and an object per ticket; an event edit is one class PATCH; a rename one
/// object PATCH; a cancellation makes the object inactive and a check-in completed; scripted
/// failures are retried, a token expired mid-run is renewed once, a 400 for one object leaves the
/// others flowing, and a fourth notifying update of a pass within 24 hours goes silent.
@Suite("Google Wallet: tickets reach Google", .offCooperativePool, .timeLimit(.minutes(5)))
struct GoogleWalletSyncTests {
    @Test("50 tickets: one class and 50 objects with the holder, seat, signed barcode and check code", arguments: Backend.allCases)
    func issuing(_ backend: Backend) async throws {
        let fixture = try GoogleFixture(backend)
        defer { fixture.stop() }
        let app = fixture.app
        let event = try app.createEvent(name: "Swift Night", venue: "Tokyo Hall")
        let serials = try (0..<50).map { try app.issueTicket(event: event, attendee: "Guest \($0)", seat: "R\($0)") }
        try await fixture.settled()
        #expect(fixture.answered("POST", .eventTicketClass).count == 1)
        #expect(fixture.answered("POST", .eventTicketObject).count == 50)
        let eventClass = try #require(fixture.fake.storedClassJSON(fixture.classID(event)))
        #expect(((eventClass["eventName"] as? [String: Any])?["defaultValue"] as? [String: Any])?["value"] as? String == "Swift Night")
        #expect(eventClass["issuerName"] as? String == "Example Events")
        #expect((eventClass["dateTime"] as? [String: Any])?["start"] as? String == "2027-03-01T19:00:00+09:00")
        #expect((eventClass["callbackOptions"] as? [String: Any])?["url"] as? String == "https://passes.example.test/google-wallet/callback")

        let scanner = try Scanner(app)
        let object = try #require(fixture.object(serials[7]))
        #expect(object["classId"] as? String == fixture.classID(event))
        #expect(object["state"] as? String == "ACTIVE")
        #expect(object["ticketHolderName"] as? String == "Guest 7")
        #expect(((object["seatInfo"] as? [String: Any])?["seat"] as? [String: Any]).flatMap { ($0["defaultValue"] as? [String: Any])?["value"] as? String } == "R7")
        let barcode = try #require(object["barcode"] as? [String: Any])
        #expect(barcode["value"] as? String == (try scanner.code(serials[7])))
        #expect(barcode["alternateText"] as? String == (try scanner.checkCode(serials[7])))
        let stored = String(decoding: try #require(fixture.fake.storedObject(fixture.objectID(serials[7]))), as: UTF8.self)
        #expect(!stored.contains("@"), "no email address goes to Google")
    }

    @Test("an event edit is one class PATCH; a rename one object PATCH; cancel inactive; check-in completed; archive expired", arguments: Backend.allCases)
    func changes(_ backend: Backend) async throws {
        let fixture = try GoogleFixture(backend)
        defer { fixture.stop() }
        let app = fixture.app
        let event = try app.createEvent()
        let serials = try (0..<20).map { try app.issueTicket(event: event, attendee: "Guest \($0)") }
        try await fixture.settled()
        let before = fixture.fake.requests.count

        #expect(try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Osaka Dome"}"#).status == 200)
        try await eventually("the class has the new venue") {
            ((fixture.fake.storedClassJSON(fixture.classID(event))?["venue"] as? [String: Any])?["name"] as? [String: Any])
                .flatMap { ($0["defaultValue"] as? [String: Any])?["value"] as? String } == "Osaka Dome"
        }
        // The re-push job bumps all 20 passes for the phones; Google gets the one class PATCH.
        try await eventually("the re-push job finished") {
            try app.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 10) }.allSatisfy { $0.finishedAt != nil }
        }
        try await fixture.settled()
        let afterEdit = Array(fixture.fake.requests.dropFirst(before))
        #expect(afterEdit.filter { $0.method == "PATCH" && $0.kind == .eventTicketClass }.count == 1, "\(afterEdit.map { "\($0.method) \($0.path)" })")
        #expect(afterEdit.filter { $0.kind == .eventTicketObject }.isEmpty)
        #expect(afterEdit.first { $0.kind == .eventTicketClass }?.notifying == true, "a new place notifies")

        // A design change: one silent class PATCH with the new colour and venue name.
        let beforeDesign = fixture.fake.requests.count
        let design = try app.admin("PUT", "/admin/v1/events/\(event)/design", json: ##"{"backgroundColor": "#102030", "details": {"venueName": "Harbour Hall", "venueRegionName": "Lisbon"}}"##)
        #expect(design.status == 200, "\(design.text)")
        try await eventually("the class has the design's colour") { fixture.fake.storedClassJSON(fixture.classID(event))?["hexBackgroundColor"] as? String == "#102030" }
        try await fixture.settled()
        let afterDesign = Array(fixture.fake.requests.dropFirst(beforeDesign))
        #expect(afterDesign.filter { $0.kind == .eventTicketClass }.map(\.notifying) == [false], "one silent class PATCH: \(afterDesign.map { "\($0.method) \($0.path)" })")
        #expect(afterDesign.filter { $0.kind == .eventTicketObject }.isEmpty)
        #expect(((fixture.fake.storedClassJSON(fixture.classID(event))?["venue"] as? [String: Any])?["name"] as? [String: Any])
            .flatMap { ($0["defaultValue"] as? [String: Any])?["value"] as? String } == "Harbour Hall")

        #expect(try app.admin("PATCH", "/admin/v1/tickets/\(serials[3])", json: #"{"attendeeName":"Grace Hopper"}"#).status == 200)
        try await eventually("the object is renamed") { fixture.object(serials[3])?["ticketHolderName"] as? String == "Grace Hopper" }
        #expect(fixture.answered("PATCH", .eventTicketObject).count == 1)
        #expect(fixture.answered("PATCH", .eventTicketObject).first?.notifying == false, "a rename is silent")

        #expect(try app.admin("POST", "/admin/v1/tickets/\(serials[4])/cancel").status == 200)
        try await eventually("the cancelled ticket is inactive") { fixture.object(serials[4])?["state"] as? String == "INACTIVE" }

        let scanner = try Scanner(app)
        #expect(try scanner.scan(try scanner.code(serials[5])).status == 200)
        try await eventually("the checked-in ticket is completed") { fixture.object(serials[5])?["state"] as? String == "COMPLETED" }
        #expect(fixture.object(serials[6])?["state"] as? String == "ACTIVE")

        // Archived: the event's other tickets expire; unarchived they are active again.
        #expect(try app.admin("POST", "/admin/v1/events/\(event)/archive").status == 200)
        try await eventually("the archived event's tickets are expired") { fixture.object(serials[6])?["state"] as? String == "EXPIRED" }
        #expect(fixture.object(serials[4])?["state"] as? String == "INACTIVE" && fixture.object(serials[5])?["state"] as? String == "COMPLETED")
        #expect(try app.admin("POST", "/admin/v1/events/\(event)/unarchive").status == 200)
        try await eventually("the unarchived event's tickets are active") { fixture.object(serials[6])?["state"] as? String == "ACTIVE" }
    }

    @Test("429, 500 and dropped connections are retried; an expired token is renewed once; a 400 fails one object only", arguments: Backend.allCases)
    func failures(_ backend: Backend) async throws {
        let fixture = try GoogleFixture(backend)
        defer { fixture.stop() }
        let app = fixture.app
        let fake = fixture.fake
        let event = try app.createEvent()
        _ = try app.issueTicket(event: event)
        try await fixture.settled()
        #expect(fake.grants == 1)

        fake.expireTokens()
        fake.fail(next: 1, method: "POST", kind: .eventTicketObject, with: .status(400))
        fake.fail(next: 2, method: "POST", kind: .eventTicketObject, with: .status(500))
        fake.fail(next: 1, method: "POST", kind: .eventTicketObject, with: .status(429))
        fake.fail(next: 1, method: "POST", kind: .eventTicketObject, with: .drop)
        let serials = try (0..<10).map { try app.issueTicket(event: event, attendee: "Late \($0)") }
        try await fixture.settled()
        let stored = serials.filter { fixture.object($0) != nil }
        #expect(stored.count == 9, "every object but the refused one")
        let refused = try #require(serials.first { fixture.object($0) == nil })
        let passID = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: SerialNumber(trusted: refused)) }?.id)
        let record = try #require(try app.store.withSession(.read) { try $0.google.googleObjects(passIDs: [passID]) }.first)
        #expect(record.failedReason?.contains("400") == true && record.insertedAt == nil)
        #expect(try app.store.withSession(.read) { try $0.google.googleOutboxCounts() }.failed == 1)
        #expect(fake.grants == 2, "one new token after the expiry, whatever the number of calls")
        #expect(fake.requests.contains { $0.dropped }, "the dropped connection happened")
        #expect(fake.requests.filter { $0.kind == .eventTicketObject && $0.status == 401 }.count >= 1, "the expired token was refused first")
        let metrics = try app.request("GET", "/metrics").text
        #expect(metrics.contains(#"passserver_google_wallet_updates_total{outcome="failed",reason="refused"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"passserver_google_wallet_outbox{state="failed"} 1"#))
        #expect(metrics.contains("passserver_google_wallet_halted 0"))
        let retried = metrics.split(separator: "\n").first { $0.hasPrefix(#"passserver_google_wallet_updates_total{outcome="retried"}"#) }
        #expect(retried.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0 >= 4, "the 500s, the 429 and the drop were retried")
    }

    @Test("a fourth notifying update of one pass within 24 hours is sent silent", arguments: Backend.allCases)
    func notificationLimit(_ backend: Backend) async throws {
        let fixture = try GoogleFixture(backend)
        defer { fixture.stop() }
        let app = fixture.app
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event, seat: "A1")
        try await fixture.settled()
        let id = fixture.objectID(serial)
        for (index, seat) in ["B2", "C3", "D4", "E5"].enumerated() {
            #expect(try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"seat":"\#(seat)"}"#).status == 200)
            try await eventually("seat \(seat) at Google") { fixture.answered("PATCH", .eventTicketObject, id: id).count == index + 1 }
        }
        let patches = fixture.answered("PATCH", .eventTicketObject, id: id)
        #expect(patches.map(\.notifying) == [true, true, true, false])
        #expect(((fixture.object(serial)?["seatInfo"] as? [String: Any])?["seat"] as? [String: Any]).flatMap { ($0["defaultValue"] as? [String: Any])?["value"] as? String } == "E5")
    }

    @Test("a deleted event's objects go inactive; an erased event's objects lose their holders and seats", arguments: Backend.allCases)
    func deletionAndErasure(_ backend: Backend) async throws {
        let fixture = try GoogleFixture(backend)
        defer { fixture.stop() }
        let app = fixture.app
        let gone = try app.createEvent(name: "Gone Gala")
        let goneSerials = try (0..<3).map { try app.issueTicket(event: gone, attendee: "Dora \($0)") }
        let erased = try app.createEvent(name: "Erase Night")
        let erasedSerial = try app.issueTicket(event: erased, attendee: "Private Pat", seat: "Box 9, Row K")
        try await fixture.settled()
        #expect(fixture.object(erasedSerial)?["ticketHolderName"] as? String == "Private Pat")
        #expect(String(decoding: try #require(fixture.fake.storedObject(fixture.objectID(erasedSerial))), as: UTF8.self).contains("Box 9, Row K"), "the seat was at Google")
        #expect(goneSerials.allSatisfy { fixture.object($0)?["state"] as? String == "ACTIVE" })

        #expect(try app.admin("DELETE", "/admin/v1/events/\(gone)?confirm=Gone%20Gala").status == 202)
        try await eventually("the deleted event's objects are inactive") { goneSerials.allSatisfy { fixture.object($0)?["state"] as? String == "INACTIVE" } }
        #expect(try app.admin("POST", "/admin/v1/events/\(erased)/erase?confirm=Erase%20Night").status == 200)
        try await eventually("the erased holder is gone at Google") { fixture.object(erasedSerial).map { $0["ticketHolderName"] is NSNull } == true }
        let stored = String(decoding: try #require(fixture.fake.storedObject(fixture.objectID(erasedSerial))), as: UTF8.self)
        #expect(!stored.contains("Private Pat") && !stored.contains("Box 9, Row K"), "\(stored)")
    }

    @Test("without the settings nothing Google runs, nothing is queued and /metrics has no Google Wallet", arguments: [Backend.sqlite])
    func off(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        #expect(app.application.googleWallet == nil)
        #expect(!(try app.request("GET", "/metrics").text.contains("google_wallet")))
        let event = try app.createEvent()
        _ = try app.issueTicket(event: event)
        #expect(try app.store.withSession(.read) { try $0.google.googleOutboxCounts() } == (pending: 0, failed: 0))
        #expect(try app.store.withSession(.read) { try $0.google.googleWalletEnabled() } == false)
    }
}

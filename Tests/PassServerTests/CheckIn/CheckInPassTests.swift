import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// What the attendee's phone sees: the signed barcode, and after a check-in a push, the serial in
/// the changed list and a pass whose status field reads "Checked in" with the time.
@Suite("Check-in: the pass shows it", .offCooperativePool, .timeLimit(.minutes(3)))
struct CheckInPassTests {
    @Test("check-in pushes the phone, which lists the serial and fetches a pass that says Checked in; undo turns it back", arguments: Backend.allCases)
    func phoneSeesCheckIn(backend: Backend) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
        defer { app.stop(); fake.shutdown() }
        let scanner = try Scanner(app)
        let serial = try app.issueTicket(event: try app.createEvent(), attendee: "Ada Lovelace", seat: "A1")
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        let tag = try #require(try phone.changedSerials().lastUpdated)

        // The pass as issued: a signed barcode and a short check code under it; status Valid.
        let issued = try PassArchive.passJSON(try phone.fetch(serial).body)
        let barcode = try #require((issued["barcodes"] as? [[String: Any]])?.first)
        let code = try #require(barcode["message"] as? String)
        #expect(code == (try scanner.code(serial)))
        let checkCode = try #require(barcode["altText"] as? String)
        #expect(checkCode.wholeMatch(of: /[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}/) != nil)
        #expect(!code.contains("Ada") && !checkCode.contains("Ada"))
        let validStatus = try #require(AdminSupport.field("status", in: issued))
        #expect(validStatus["label"] as? String == "STATUS")
        #expect(validStatus["value"] as? String == "STATUS_VALID")
        #expect(validStatus["timeStyle"] == nil)
        #expect(fake.count(token: phone.pushToken) == 0)

        // Scanned at the door, with the code read off the pass itself.
        // Issued an hour ago (before the door opened); scanned five minutes ago.
        try Scanner.backdate(app, by: 3_600)
        let at = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 300).rounded(.down))
        let scanned = try scanner.scan(code, gate: "North", at: ISODate.format(at, timeZone: "Asia/Tokyo"))
        #expect(scanned.status == 200, "\(scanned.text)")
        #expect(scanned.jsonObject?["checkCode"] as? String == checkCode)
        try await eventually("the phone was pushed") { fake.count(token: phone.pushToken) >= 1 }
        let push = try #require(fake.pushes.first { $0.token == phone.pushToken })
        #expect(push.topic == app.passTypeIdentifier)

        let listed = try phone.changedSerials(since: tag)
        #expect(listed.status == 200)
        #expect(listed.serials == [serial])
        let fetched = try phone.fetch(serial)
        #expect(fetched.status == 200)
        let pass = try PassArchive.passJSON(fetched.body)
        let status = try #require(AdminSupport.field("status", in: pass))
        #expect(status["label"] as? String == "STATUS_CHECKED_IN")
        // The time in the event's zone (Asia/Tokyo), shown as a time by Wallet in the phone's language.
        #expect(status["value"] as? String == ISODate.format(at, timeZone: "Asia/Tokyo"))
        #expect(status["timeStyle"] as? String == "PKDateStyleShort")
        #expect(status["dateStyle"] as? String == "PKDateStyleNone")
        #expect(status["ignoresTimeZone"] as? Bool == true)
        #expect(status["changeMessage"] as? String == "STATUS_CHECKED_IN_CHANGE_MESSAGE")
        #expect(pass["voided"] as? Bool == false)
        let root = PassServerExecutable.packageRoot.path + "/Passes/event-ticket/"
        let english = try String(contentsOfFile: root + "en.lproj/pass.strings", encoding: .utf8)
        #expect(english.contains(#""STATUS_CHECKED_IN" = "Checked in";"#))
        #expect(english.contains(#""STATUS_CHECKED_IN_CHANGE_MESSAGE" = "Checked in at %@";"#))
        let japanese = try String(contentsOfFile: root + "ja.lproj/pass.strings", encoding: .utf8)
        #expect(japanese.contains(#""STATUS_CHECKED_IN" = "入場済み";"#))
        #expect((pass["barcodes"] as? [[String: Any]])?.first?["message"] as? String == code, "the code does not change")

        // A second scan changes nothing on the pass: the phone's newest tag lists nothing, and no
        // push follows (the first scan's came within moments; this waits well past that).
        #expect(try scanner.scan(code).status == 409)
        let afterCheckIn = try #require(listed.lastUpdated)
        #expect(try phone.changedSerials(since: afterCheckIn).status == 204)
        await AdminSupport.pause(1.5)
        #expect(fake.count(token: phone.pushToken) == 1, "the refused scan pushed the phone")
        let undone = try app.admin("DELETE", "/admin/v1/tickets/\(serial)/checkin")
        #expect(undone.status == 200)
        try await eventually("the phone was pushed the undo") { fake.count(token: phone.pushToken) >= 2 }
        let restored = try #require(AdminSupport.field("status", in: try PassArchive.passJSON(try phone.fetch(serial).body)))
        #expect(restored["value"] as? String == "STATUS_VALID")
        #expect(restored["label"] as? String == "STATUS")
        #expect(fake.count(token: phone.pushToken) == 2)
    }
}

import Foundation
import PassBundle
import PassServerTesting
import Testing

@Suite("Template rendering", .offCooperativePool)
struct TemplateRenderingTests {
    private func render(_ ticket: TicketData, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let certificates = try Fixture.certificates()
        let signer = try PassSigner(identity: certificates.identity)
        let bytes = try PassBundle.renderPassJSON(template: Fixture.template(), data: ticket, signer: signer)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], sourceLocation: sourceLocation)
    }

    private func field(_ pass: [String: Any], _ group: String, _ key: String) -> [String: Any]? {
        let ticket = pass["eventTicket"] as? [String: Any]
        return (ticket?[group] as? [[String: Any]])?.first { $0["key"] as? String == key }
    }

    @Test("an attendee name that looks like JSON stays one string value")
    func injectionIsInert() throws {
        let hostile = #""}],"voided":true,"x":""#
        let pass = try render(Fixture.ticket(attendee: hostile + "\n\\u0000"))
        #expect(pass["voided"] as? Bool == false)
        #expect(pass["x"] == nil)
        #expect(field(pass, "auxiliaryFields", "attendee")?["value"] as? String == hostile + "\n\\u0000")
        #expect((pass["semantics"] as? [String: Any])?["attendeeName"] as? String == hostile + "\n\\u0000")
        let groups = (pass["eventTicket"] as? [String: Any])?.keys.sorted()
        #expect(groups == ["auxiliaryFields", "backFields", "headerFields", "primaryFields", "secondaryFields"])
    }

    @Test("identifiers, QR barcode, dates with the venue's zone and semantic tags are filled in")
    func values() throws {
        let ticket = Fixture.ticket()
        let pass = try render(ticket)
        #expect(pass["passTypeIdentifier"] as? String == TestCertificates.passTypeIdentifier)
        #expect(pass["teamIdentifier"] as? String == TestCertificates.teamIdentifier)
        #expect(pass["formatVersion"] as? Int == 1)
        let barcode = try #require((pass["barcodes"] as? [[String: Any]])?.first)
        #expect(barcode["format"] as? String == "PKBarcodeFormatQR")
        #expect(barcode["message"] as? String == ticket.serialNumber)
        // 1_780_000_000 = 2026-05-28T20:26:40Z = 2026-05-29T05:26:40+09:00
        #expect(field(pass, "secondaryFields", "starts")?["value"] as? String == "2026-05-29T05:26:40+09:00")
        let semantics = try #require(pass["semantics"] as? [String: Any])
        #expect(semantics["eventName"] as? String == "Swift Night")
        #expect(semantics["venueName"] as? String == "Hall 1, Tokyo")
        #expect(semantics["eventStartDate"] as? String == "2026-05-29T05:26:40+09:00")
        #expect(semantics["eventEndDate"] as? String == "2026-05-29T08:26:40+09:00")
        #expect((semantics["seats"] as? [[String: String]])?.first?["seatIdentifier"] == "B-7")
        #expect(field(pass, "headerFields", "status")?["value"] as? String == "STATUS_VALID")
    }

    @Test("a cancelled ticket is voided and its status field says Cancelled with a change message")
    func cancellation() throws {
        let pass = try render(Fixture.ticket(cancelled: true))
        #expect(pass["voided"] as? Bool == true)
        let status = try #require(field(pass, "headerFields", "status"))
        #expect(status["value"] as? String == "STATUS_CANCELLED")
        #expect(status["changeMessage"] as? String == "STATUS_CHANGE_MESSAGE")
    }

    @Test("no seat and no end time: general admission, and the optional semantic keys disappear")
    func optionalValues() throws {
        var ticket = Fixture.ticket(seat: nil)
        ticket.endsAt = nil
        let pass = try render(ticket)
        #expect(field(pass, "auxiliaryFields", "seat")?["value"] as? String == "GENERAL_ADMISSION")
        let semantics = try #require(pass["semantics"] as? [String: Any])
        #expect(semantics["seats"] == nil)
        #expect(semantics["eventEndDate"] == nil)
    }

    @Test("daylight saving time and UTC offsets follow the given zone")
    func timeZones() throws {
        var ticket = Fixture.ticket()
        ticket.timeZone = "America/New_York"
        ticket.startsAt = Date(timeIntervalSince1970: 1_780_000_000) // summer: UTC-4
        #expect(field(try render(ticket), "secondaryFields", "starts")?["value"] as? String == "2026-05-28T16:26:40-04:00")
        ticket.startsAt = Date(timeIntervalSince1970: 1_767_225_600) // 2026-01-01T00:00:00Z, winter: UTC-5
        #expect(field(try render(ticket), "secondaryFields", "starts")?["value"] as? String == "2025-12-31T19:00:00-05:00")
        ticket.timeZone = "UTC"
        #expect(field(try render(ticket), "secondaryFields", "starts")?["value"] as? String == "2026-01-01T00:00:00Z")
        ticket.timeZone = "Mars/Olympus_Mons"
        let error = #expect(throws: PassBundleError.self) { _ = try render(ticket) }
        #expect(error?.code == .invalidData)
        #expect(error?.message.contains("timeZone") == true)
    }

    @Test("the template ships en and ja strings with the same keys, and every label is localized")
    func localizations() throws {
        let template = try Fixture.template()
        #expect(template.localizations == ["en", "ja"])
        func keys(_ language: String) throws -> Set<String> {
            let text = try String(contentsOfFile: Fixture.templateDirectory + "/\(language).lproj/pass.strings", encoding: .utf8)
            return Set(text.split(separator: "\n").compactMap { line in
                line.hasPrefix("\"") ? line.split(separator: "\"").first.map(String.init) : nil
            })
        }
        let english = try keys("en")
        #expect(english == (try keys("ja")))
        let pass = try render(Fixture.ticket(seat: nil, cancelled: true))
        let ticket = try #require(pass["eventTicket"] as? [String: Any])
        var labels = 0
        var messages = 0
        for group in ticket.values.compactMap({ $0 as? [[String: Any]] }) {
            for field in group {
                if let label = field["label"] as? String {
                    labels += 1
                    #expect(english.contains(label), "label \(label) not localized")
                }
                if let message = field["changeMessage"] as? String {
                    messages += 1
                    #expect(english.contains(message), "\(message) not localized")
                }
            }
        }
        // The loops above saw the fields: labels, and the cancelled status's change message.
        #expect(labels >= 5)
        #expect(messages >= 1)
        for key in ["STATUS_CANCELLED", "STATUS_VALID", "GENERAL_ADMISSION"] { #expect(english.contains(key)) }
    }

    @Test("pass.json written during rendering equals the canonical serialization of the tree")
    func bytesMatchTree() throws {
        let certificates = try Fixture.certificates()
        let signer = try PassSigner(identity: certificates.identity)
        let template = try Fixture.template()
        var noEnd = Fixture.ticket(seat: nil)
        noEnd.endsAt = nil
        for ticket in [Fixture.ticket(), Fixture.ticket(attendee: "\"}],\n\u{1}ü", seat: nil, cancelled: true), noEnd] {
            let bytes = try PassBundle.renderPassJSON(template: template, data: ticket, signer: signer)
            let values = try ticket.templateValues(passTypeIdentifier: signer.passTypeIdentifier, teamIdentifier: signer.teamIdentifier)
            #expect(bytes == (try template.render(values)).serialized)
            let reparsed = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            #expect(reparsed.serialized == bytes)
        }
    }

    @Test("an unknown placeholder names itself and where it is")
    func unknownPlaceholder() throws {
        let files: [String: [UInt8]] = [
            "pass.json": Array(#"{"formatVersion":1,"logoText":"Hi {{nickname}}"}"#.utf8),
            "icon.png": [0x89, 0x50],
        ]
        let template = try Template(name: "custom", files: files)
        let error = #expect(throws: PassBundleError.self) { _ = try template.render(["other": .string("x")]) }
        #expect(error?.code == .unknownPlaceholder)
        #expect(error?.message.contains("{{nickname}}") == true && error?.message.contains("logoText") == true)
        let rendered = try template.render(["nickname": .string("\"Bob\"")])
        #expect(String(decoding: rendered.serialized, as: UTF8.self) == #"{"formatVersion":1,"logoText":"Hi \"Bob\""}"#)
    }

    @Test("templates without icon.png or with a generated file name are rejected")
    func templateChecks() {
        let noIcon = #expect(throws: PassBundleError.self) { _ = try Template(name: "t", files: ["pass.json": Array("{}".utf8)]) }
        #expect(noIcon?.code == .invalidTemplate)
        let reserved = #expect(throws: PassBundleError.self) {
            _ = try Template(name: "t", files: ["pass.json": Array("{}".utf8), "icon.png": [1], "signature": [1]])
        }
        #expect(reserved?.message.contains("signature") == true)
        let missing = #expect(throws: PassBundleError.self) { _ = try Template.load(directory: "/nonexistent/template") }
        #expect(missing?.code == .templateUnreadable)
    }
}

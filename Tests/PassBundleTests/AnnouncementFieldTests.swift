import Foundation
import PassBundle
import PassServerTesting
import Testing

/// The organizer's announcement on the back of a pass: first among the back fields, its text as
/// the value, `changeMessage` `%@` when it notifies, inert text (never a placeholder), labelled
/// from the template's strings when it has the key.
@Suite("Announcement back field", .offCooperativePool)
struct AnnouncementFieldTests {
    private func backFields(_ ticket: TicketData, template: Template? = nil, design: PassDesign? = nil) throws -> [[String: Any]] {
        let signer = try PassSigner(identity: try Fixture.certificates().identity)
        let template = try template ?? Fixture.template()
        let bytes = try design.map { try PassBundle.renderPassJSON(template: template, data: ticket, design: $0, signer: signer) }
            ?? PassBundle.renderPassJSON(template: template, data: ticket, signer: signer)
        let pass = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        return ((pass["eventTicket"] as? [String: Any])?["backFields"] as? [[String: Any]]) ?? []
    }

    @Test("a notifying announcement is the first back field, with changeMessage %@; with or without a design")
    func notifying() throws {
        var ticket = Fixture.ticket()
        let plain = try backFields(ticket)
        #expect(!plain.contains { $0["key"] as? String == "announcement" })
        ticket.announcement = TicketData.Announcement(message: "Gate B {{serialNumber}} is closed\nUse gate C", notify: true)
        for fields in [try backFields(ticket), try backFields(ticket, design: PassDesign(backgroundColor: "#102030"))] {
            let first = try #require(fields.first)
            #expect(first["key"] as? String == "announcement")
            #expect(first["value"] as? String == "Gate B {{serialNumber}} is closed\nUse gate C", "the text is never a placeholder")
            #expect(first["changeMessage"] as? String == "%@")
            #expect(first["label"] as? String == "Announcement", "the bundled template has no ANNOUNCEMENT string: the English word")
            #expect(fields.count == plain.count + 1, "the template's own back fields stay")
        }
    }

    @Test("a silent one carries no changeMessage; a template field of the same key gives way; the label comes from pass.strings")
    func silentAndLabelled() throws {
        var ticket = Fixture.ticket()
        ticket.announcement = TicketData.Announcement(message: "Coats to the cloakroom", notify: false)
        let first = try #require(try backFields(ticket).first)
        #expect(first["value"] as? String == "Coats to the cloakroom" && first["changeMessage"] == nil)

        let base = try Fixture.template()
        var files: [String: [UInt8]] = [:]
        for path in base.filePaths { files[path] = base.file(at: path) }
        files["fields.json"] = try Fixture.fieldsJSON()
        var pass = String(decoding: base.passJSON.serialized, as: UTF8.self)
        pass = pass.replacingOccurrences(of: #""backFields":["#, with: #""backFields":[{"key":"announcement","label":"Old","value":"Template's own"},"#)
        files["pass.json"] = Array(pass.utf8)
        for language in ["en", "ja"] {
            let strings = String(decoding: files["\(language).lproj/pass.strings"] ?? [], as: UTF8.self)
            files["\(language).lproj/pass.strings"] = Array((strings + "\n\"ANNOUNCEMENT\" = \"\(language == "ja" ? "お知らせ" : "News")\";\n").utf8)
        }
        let template = try Template(name: "with-announcement", files: files)
        let fields = try backFields(ticket, template: template)
        #expect(fields.filter { $0["key"] as? String == "announcement" }.count == 1, "one field of the key")
        #expect(fields.first?["value"] as? String == "Coats to the cloakroom")
        #expect(fields.first?["label"] as? String == "ANNOUNCEMENT", "every localization has the key")
    }
}

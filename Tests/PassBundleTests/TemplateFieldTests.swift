import Foundation
import PassBundle
import PassServerTesting
import Testing

@Suite("Template extra fields (fields.json)", .offCooperativePool)
struct TemplateFieldTests {
    private func template(fields: String) throws -> Template {
        let pass = try Data(contentsOf: URL(fileURLWithPath: Fixture.templateDirectory + "/pass.json"))
        return try Template(name: "t", files: ["pass.json": Array(pass), "icon.png": [1], "fields.json": Array(fields.utf8)])
    }

    private func issues(_ fields: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        let error = #expect(throws: PassBundleError.self, sourceLocation: sourceLocation) { _ = try template(fields: fields) }
        #expect(error?.code == .invalidTemplate, sourceLocation: sourceLocation)
        return error.map { $0.issues.isEmpty ? [$0.message] : $0.issues.map(\.description) } ?? []
    }

    @Test("the default template declares ticketType and gate; fields.json is not part of the bundle")
    func defaultTemplate() throws {
        let template = try Fixture.template()
        #expect(template.fields == [
            TemplateField(name: "ticketType", kind: .enumeration(values: ["General", "VIP", "Student", "Staff"]), defaultText: "General"),
            TemplateField(name: "gate", kind: .string(maxLength: 16, multiline: false), defaultText: "ANY_GATE"),
        ])
        #expect(!template.filePaths.contains("fields.json"))
    }

    @Test("values reach pass.json; a field without one shows its default")
    func rendering() throws {
        let certificates = try Fixture.certificates()
        let signer = try PassSigner(identity: certificates.identity)
        func fields(_ ticket: TicketData) throws -> (gate: String?, type: String?) {
            let bytes = try PassBundle.renderPassJSON(template: Fixture.template(), data: ticket, signer: signer)
            let pass = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            let groups = try #require(pass["eventTicket"] as? [String: Any])
            func value(_ group: String, _ key: String) -> String? {
                ((groups[group] as? [[String: Any]])?.first { $0["key"] as? String == key })?["value"] as? String
            }
            return (value("auxiliaryFields", "gate"), value("backFields", "ticketType"))
        }
        let plain = try fields(Fixture.ticket())
        #expect(plain.gate == "ANY_GATE")
        #expect(plain.type == "General")
        var ticket = Fixture.ticket()
        ticket.extra = ["gate": "North 3", "ticketType": "VIP"]
        let filled = try fields(ticket)
        #expect(filled.gate == "North 3")
        #expect(filled.type == "VIP")
    }

    @Test("every kind of field, with its defaults")
    func kinds() throws {
        let template = try template(fields: """
            {"fields": [
              {"name": "note", "type": "string", "multiline": true, "maxLength": 500},
              {"name": "table", "type": "integer", "minimum": 1, "maximum": 40, "required": true},
              {"name": "meal", "type": "enum", "values": ["fish", "veggie"]},
              {"name": "plain", "type": "string"}
            ]}
            """)
        #expect(template.fields.map(\.name) == ["note", "table", "meal", "plain"])
        #expect(template.fields[0].kind == .string(maxLength: 500, multiline: true))
        #expect(template.fields[1] == TemplateField(name: "table", kind: .integer(minimum: 1, maximum: 40), required: true))
        #expect(template.fields[2].kind == .enumeration(values: ["fish", "veggie"]))
        #expect(template.fields[3].kind == .string(maxLength: 200, multiline: false))
        #expect(template.fields[3].required == false && template.fields[3].defaultText == nil)
    }

    @Test("every mistake in fields.json is named, all at once")
    func mistakes() {
        let found = issues("""
            {"fields": [
              {"name": "9lives", "type": "string"},
              {"name": "voidReason", "type": "string"},
              {"name": "gate", "type": "string", "maxLength": 0, "colour": "red"},
              {"name": "gate", "type": "string"},
              {"name": "kind", "type": "date"},
              {"name": "pick", "type": "enum", "values": ["a", "a"]},
              {"name": "must", "type": "integer", "required": true, "default": "0", "minimum": 5, "maximum": 1},
              {"type": "string"},
              "gate"
            ]}
            """)
        #expect(found == [
            "fields[0].name: must be a letter followed by at most 31 letters or digits",
            "fields[1].name: \"voidReason\" is reserved",
            "fields[2].colour: unknown key for a field of type string",
            "fields[2].maxLength: must be 1 to 1000",
            "fields[3].name: \"gate\" is declared twice",
            "fields[4].type: \"date\" is not one of string, integer, enum",
            "fields[5].values: \"a\" appears twice",
            "fields[6].default: a required field needs no default",
            "fields[6].maximum: must not be below minimum",
            "fields[7].name: is required",
            "fields[8]: must be an object",
        ])
    }

    @Test("a file that is not a fields object is refused")
    func wrongShape() {
        #expect(issues("[1]").first?.contains("\"fields\"") == true)
        #expect(issues("{\"fields\": [], \"more\": 1}").first?.contains("\"fields\"") == true)
        #expect(issues("{").first?.contains("not valid JSON") == true)
    }
}

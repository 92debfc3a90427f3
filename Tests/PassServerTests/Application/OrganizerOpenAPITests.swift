import Foundation
import HTTPServer
import PassBundle
import PassServerTesting
import Testing

@testable import PassServer

/// The schemas `openapi.yaml` adds for the organizer routes accept exactly what the server does.
@Suite("OpenAPI document: the organizer schemas", .offCooperativePool, .timeLimit(.minutes(3)))
struct OrganizerOpenAPITests {
    private func compare(
        _ schema: String, _ samples: [String], sourceLocation: SourceLocation = #_sourceLocation, _ accepts: (String) throws -> Bool
    ) throws {
        let document = try OpenAPIExactnessTests.documentAccepts(schema, samples)
        #expect(document.count == samples.count, "\(schema): a verdict for every sample", sourceLocation: sourceLocation)
        for (sample, documented) in zip(samples, document) {
            let server = try accepts(sample)
            #expect(server == documented, "\(schema) \(sample.debugDescription): document \(documented), server \(server)", sourceLocation: sourceLocation)
        }
    }

    static let texts = [
        "ORD-1", " ORD-1 ", "a\nb", "\u{0}", "\u{85}", "\u{A0}", " ", "", "😀", "\u{3000}x", String(repeating: "x", count: 16),
        String(repeating: "x", count: 17), String(repeating: "x", count: 128), String(repeating: "x", count: 129), "e\u{301}",
    ]

    @Test("ExternalId and the default template's gate: lengths in scalars, controls, blanks")
    func texts() throws {
        try compare("ExternalId", Self.texts) { try OpenAPIExactnessTests.serverAccepts($0) { _ = $0.text("field", maxLength: TicketInput.externalIDMaxLength) } }
        let template = try TemplateStore(root: PassServerExecutable.packageRoot.appendingPathComponent("Passes").path).template(named: "event-ticket")
        let gate = try #require(template.fields.first { $0.name == "gate" })
        try compare("Gate", Self.texts) { sample in
            let body = try JSONSerialization.data(withJSONObject: ["extra": ["gate": sample]])
            var input = try AdminInput(Request(method: .POST, body: Array(body)), allowed: ["extra"])
            _ = input.extras(declared: [gate], creating: true)
            return input.problems.isEmpty
        }
    }

    @Test("UploadedTemplateName and FieldSource accept exactly what the template upload and its mapping do")
    func templateNamesAndSources() throws {
        let names = [
            "gala", "spring-gala", "a", "0", "2027-gala", "gala-", "-gala", "Gala", "ga_la", "ga la", "gäla", "", " gala", "gala\n",
            String(repeating: "a", count: 64), String(repeating: "a", count: 65),
        ]
        try compare("UploadedTemplateName", names) { (try? FieldRules.templateName($0).get()) != nil }
        let sources = FieldSource.ticketSources.map(\.rawValue) + [
            "extra.tier", "extra.t1", "extra.T", "extra." + String(repeating: "a", count: 32), "extra." + String(repeating: "a", count: 33),
            "extra.1tier", "extra.", "extra.ti-er", "extra", "Seat", "seat ", "shoeSize", "", "extra.tier.gold",
        ]
        try compare("FieldSource", sources) { sample in
            guard let source = FieldSource(rawValue: sample) else { return false }
            if case .extra(let name) = source { return PassDesignerTemplate.extraNameProblem(name) == nil }
            return true
        }
        // The one reserved name the pattern lets through, which the schema's description names.
        #expect(PassDesignerTemplate.extraNameProblem("voidReason") != nil)
        #expect(try OpenAPIExactnessTests.documentAccepts("FieldSource", ["extra.voidReason"]) == [true])
    }

    @Test("TicketType lists the default template's values; EventCursor's pattern is what the server decodes")
    func enumerationAndCursor() throws {
        let template = try TemplateStore(root: PassServerExecutable.packageRoot.appendingPathComponent("Passes").path).template(named: "event-ticket")
        guard case .enumeration(let values)? = template.fields.first(where: { $0.name == "ticketType" })?.kind else {
            Issue.record("the default template declares ticketType as an enum")
            return
        }
        #expect(try OpenAPIExactnessTests.documentAccepts("TicketType", values + ["Gold", "vip", ""]) == values.map { _ in true } + [false, false, false])
        let cursors = [
            "1800000000000.abc", "0.a", "999999999999999.A_-z", "1000000000000000.a", "-1.a", "1.", ".a", "1.a.b", "1.a b", "01.x",
            "1." + String(repeating: "a", count: 64), "1." + String(repeating: "a", count: 65), "1800000000000.abc\n", "١.a",
        ]
        try compare("EventCursor", cursors) { EventCursor.decode($0) != nil }
    }
}

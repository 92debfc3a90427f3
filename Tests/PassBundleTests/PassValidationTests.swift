import Foundation
import PassBundle
import PassServerTesting
import Testing

@Suite("pass.json validation", .offCooperativePool)
struct PassValidationTests {
    private func build(_ ticket: TicketData, template: Template? = nil, options: ValidationOptions = ValidationOptions()) throws -> [UInt8] {
        let certificates = try Fixture.certificates()
        return try PassBundle.build(template: template ?? Fixture.template(), data: ticket, identity: certificates.identity, options: options)
    }

    private func issues(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> [PassBundleError.Issue] {
        let error = #expect(throws: PassBundleError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.code == .invalidPass, sourceLocation: sourceLocation)
        return error?.issues ?? []
    }

    @Test("webServiceURL must be https unless the development flag allows http", arguments: [
        ("http://passes.example.com/", true),
        ("ftp://passes.example.com/", false),
        ("not a url", false),
    ])
    func webServiceURL(url: String, allowedInDevelopment: Bool) throws {
        var ticket = Fixture.ticket()
        ticket.webServiceURL = url
        let found = issues { _ = try build(ticket) }
        #expect(found.map(\.key) == ["webServiceURL"])
        if allowedInDevelopment {
            #expect(found.first?.problem.contains("https") == true)
            #expect(try !build(ticket, options: ValidationOptions(allowHTTPWebService: true)).isEmpty)
        } else {
            #expect(throws: PassBundleError.self) { _ = try build(ticket, options: ValidationOptions(allowHTTPWebService: true)) }
        }
    }

    @Test("authenticationToken must have at least 16 characters")
    func shortToken() {
        var ticket = Fixture.ticket()
        ticket.authenticationToken = "short-token"
        let found = issues { _ = try build(ticket) }
        #expect(found == [.init(key: "authenticationToken", problem: "must be at least 16 characters, found 11")])
    }

    @Test("pass type and team identifiers must equal the certificate's UID and OU; every issue is reported")
    func mismatchedIdentifiers() throws {
        var json = String(decoding: try Data(contentsOf: URL(fileURLWithPath: Fixture.templateDirectory + "/pass.json")), as: UTF8.self)
        json = json.replacingOccurrences(of: "\"{{passTypeIdentifier}}\"", with: "\"pass.com.other\"")
        json = json.replacingOccurrences(of: "\"{{teamIdentifier}}\"", with: "\"OTHERTEAM9\"")
        let template = try Template(name: "mismatch", files: ["pass.json": Array(json.utf8), "icon.png": [0x89], "fields.json": try Fixture.fieldsJSON()])
        let found = issues { _ = try build(Fixture.ticket(), template: template) }
        #expect(Set(found.map(\.key)) == ["passTypeIdentifier", "teamIdentifier"])
        #expect(found.first { $0.key == "passTypeIdentifier" }?.problem.contains(TestCertificates.passTypeIdentifier) == true)
    }

    @Test("missing required keys and wrong formatVersion name the key")
    func requiredKeys() throws {
        let missing = try Template(name: "m", files: ["pass.json": Array(#"{"formatVersion":1,"passTypeIdentifier":"{{passTypeIdentifier}}"}"#.utf8), "icon.png": [1]])
        let found = issues { _ = try build(Fixture.ticket(), template: missing) }
        #expect(found.first?.problem == "required key is missing")
        #expect(["serialNumber", "teamIdentifier", "organizationName", "description"].contains(found.first?.key ?? ""))

        var json = String(decoding: try Data(contentsOf: URL(fileURLWithPath: Fixture.templateDirectory + "/pass.json")), as: UTF8.self)
        json = json.replacingOccurrences(of: "\"formatVersion\": 1", with: "\"formatVersion\": 2")
        json = json.replacingOccurrences(of: "PKBarcodeFormatQR", with: "PKBarcodeFormatEAN")
        let bad = try Template(name: "v2", files: ["pass.json": Array(json.utf8), "icon.png": [1], "fields.json": try Fixture.fieldsJSON()])
        let badIssues = issues { _ = try build(Fixture.ticket(), template: bad) }
        #expect(Set(badIssues.map(\.key)) == ["formatVersion", "barcodes[0].format"])
    }

    @Test("type problems name the full key path, through objects and arrays", arguments: [
        (#""value": "{{eventName}}""#, #""value": true"#, "eventTicket.primaryFields[0].value", "has the wrong type (expected a string or a number)"),
        (#""formatVersion": 1"#, #""formatVersion": 1.5"#, "formatVersion", "1.5 is not an integer"),
        (#""formatVersion": 1"#, #""formatVersion": null"#, "formatVersion", "is null (expected an integer)"),
        (#""barcodes": ["#, #""barcodes": [7, "#, "barcodes[0]", "has the wrong type (expected an object)"),
    ])
    func decodingPaths(original: String, replacement: String, key: String, problem: String) throws {
        var json = String(decoding: try Data(contentsOf: URL(fileURLWithPath: Fixture.templateDirectory + "/pass.json")), as: UTF8.self)
        #expect(json.contains(original), "the template changed: \(original) not found")
        if let range = json.range(of: original) { json.replaceSubrange(range, with: replacement) }
        let template = try Template(name: "typed", files: ["pass.json": Array(json.utf8), "icon.png": [1], "fields.json": try Fixture.fieldsJSON()])
        let found = issues { _ = try build(Fixture.ticket(), template: template) }
        #expect(found == [.init(key: key, problem: problem)])
    }

    @Test("decoding pass.json bytes reports the same issues as the rendered tree")
    func decodingBytes() throws {
        let error = #expect(throws: PassBundleError.self) {
            _ = try PassDefinition.decode(Array(#"{"formatVersion": 1, "passTypeIdentifier": "p", "serialNumber": "s", "teamIdentifier": "t", "organizationName": "o", "description": 3}"#.utf8))
        }
        #expect(error?.issues == [.init(key: "description", problem: "has the wrong type (expected a string)")])
        #expect(throws: PassBundleError.self) { _ = try PassDefinition.decode(Array("{not json".utf8)) }
    }

    @Test("the default template is valid for a voided ticket without seat as well")
    func variantsAreValid() throws {
        var ticket = Fixture.ticket(seat: nil, cancelled: true)
        ticket.endsAt = nil
        #expect(try !build(ticket).isEmpty)
    }
}

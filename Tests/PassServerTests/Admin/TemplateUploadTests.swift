import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import SystemSupport
import Testing

@testable import PassServer

/// Pass Designer templates through the admin API: a zipped `.pkpasstemplate` folder imports with
/// its fields and guessed mapping, events use it like a folder template, its passes sign and
/// verify with openssl and show the ticket's values; broken archives are refused with every
/// reason and nothing is stored; a new mapping or a new archive re-pushes the events using it.
@Suite("Admin API: templates from Pass Designer", .offCooperativePool, .timeLimit(.minutes(5)))
struct TemplateUploadTests {
    static func storedCount(_ app: TestApp) throws -> Int {
        try app.store.withSession(.read) { try $0.templates.storedTemplateNames().count }
    }

    static func createEvent(_ app: TestApp, template: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let response = try app.admin("POST", "/admin/v1/events", json: """
            {"name": "Autumn Gala", "venue": "Harbour Hall", "startsAt": "2027-10-02T19:30:00+02:00", "timeZone": "Europe/Paris", "template": "\(template)"}
            """)
        try #require(response.status == 201, "\(response.text)", sourceLocation: sourceLocation)
        return try #require(response.jsonObject?["id"] as? String, sourceLocation: sourceLocation)
    }

    /// The signed bundle of `serial` from its download link.
    static func download(_ app: TestApp, serial: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let ticket = try app.admin("GET", "/admin/v1/tickets/\(serial)")
        let path = try AdminSupport.path(of: ticket.jsonObject?["downloadURL"] as? String)
        let download = try app.request("GET", path)
        try #require(download.status == 200, "download: \(download.status)", sourceLocation: sourceLocation)
        #expect(download.header("Content-Type") == "application/vnd.apple.pkpass", sourceLocation: sourceLocation)
        return download.body
    }

    /// Why `body` does not conform to `components.schemas[schema]` of openapi.yaml (checked with
    /// Python's jsonschema, Draft 2020-12, as OpenAPI 3.1 states), or nil when it does.
    static func nonConformance(_ body: [UInt8], to schema: String) throws -> String? {
        let script = """
            import json, sys, yaml, jsonschema
            doc = yaml.safe_load(open(sys.argv[1]))
            validator = jsonschema.Draft202012Validator({"$ref": "#/components/schemas/" + sys.argv[2], "components": doc["components"]})
            errors = [f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(json.load(sys.stdin))]
            print("; ".join(errors))
            """
        let directory = try TestCertificates.temporaryDirectory(prefix: "template-schema")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(body).write(to: URL(fileURLWithPath: directory + "/body.json"))
        let process = try ChildProcess(
            "/usr/bin/python3", ["-c", script, OpenAPITests.documentPath, schema], standardInput: .file(directory + "/body.json"),
            standardOutput: .pipe, standardError: .pipe
        )
        let (output, errors) = try process.readToEnd()
        _ = process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw AdminSupport.Failure(description: "python3 failed: \(String(decoding: errors, as: UTF8.self))") }
        let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    static func value(_ key: String, in pass: [String: Any]) -> String? {
        AdminSupport.field(key, in: pass)?["value"] as? String
    }

    @Test("an imported template lists its fields and guesses; an event on it issues a ticket whose pass verifies and shows the ticket", arguments: Backend.allCases)
    func importIssueAndVerify(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let response = try DesignerFolder.upload(app, try DesignerFolder.archive(), name: "autumn-gala")
        try #require(response.status == 201, "\(response.text)")
        let body = try #require(response.jsonObject)
        #expect(try Self.nonConformance(response.body, to: "PassTemplateChange") == nil, "the answer is as openapi.yaml states")
        #expect((body["jobs"] as? [Any])?.isEmpty == true, "a new template re-pushes nothing")
        let template = try #require(body["template"] as? [String: Any])
        #expect(template["name"] as? String == "autumn-gala" && template["origin"] as? String == "uploaded")
        let fields = try #require(template["fields"] as? [[String: Any]])
        #expect(fields.map { $0["key"] as? String } == ["eventTitle", "startDate", "location", "holder", "seatInfo", "tier", "terms"])
        let holder = try #require(fields.first { $0["key"] as? String == "holder" })
        #expect(holder["label"] as? String == "Attendee Name" && holder["value"] as? String == "John Appleseed" && holder["area"] as? String == "auxiliary")
        #expect(fields.first { $0["key"] as? String == "startDate" }?["isDate"] as? Bool == true)
        let mapping = try #require(template["mapping"] as? [String: String])
        #expect(mapping == [
            "eventTitle": "eventName", "startDate": "startsAt", "location": "venue", "holder": "attendeeName", "seatInfo": "seat", "tier": "constant",
            "terms": "constant",
        ])
        #expect(template["notes"] is [String], "the import says what it changed (nothing unusual for this one)")

        let list = try app.admin("GET", "/admin/v1/templates")
        for template in try #require(list.jsonObject?["templates"] as? [Any]) {
            #expect(try Self.nonConformance(Array(try JSONSerialization.data(withJSONObject: template)), to: "PassTemplate") == nil)
        }
        let listed = try #require(list.jsonObject?["templates"] as? [[String: Any]])
        #expect(listed.map { "\($0["origin"] ?? "")/\($0["name"] ?? "")" } == ["file/event-ticket", "uploaded/autumn-gala"])
        #expect(try app.admin("GET", "/admin/v1/templates/autumn-gala").jsonObject?["mapping"] as? [String: String] == mapping)
        let folder = try #require(try app.admin("GET", "/admin/v1/templates/event-ticket").jsonObject)
        #expect(folder["origin"] as? String == "file" && folder["mapping"] == nil)
        #expect((folder["fields"] as? [[String: Any]])?.contains { $0["value"] as? String == "{{eventName}}" } == true)
        #expect(try app.admin("GET", "/admin/v1/templates/no-such").status == 404)

        // An event on the uploaded template, and a ticket on it.
        let event = try Self.createEvent(app, template: "autumn-gala")
        let serial = try app.issueTicket(event: event, attendee: "Grace Hopper", seat: "B7")
        let bundle = try Self.download(app, serial: serial)
        let files = try PassArchive.files(bundle)
        try EventDesignTests.verifySignature(files, root: app.certificates.rootCertificate)
        for image in DesignerFolder.images { #expect(files[image] != nil, "\(image) is in the pass") }
        let pass = try PassArchive.passJSON(bundle)
        #expect(pass["serialNumber"] as? String == serial && pass["passTypeIdentifier"] as? String == app.passTypeIdentifier)
        #expect(pass["backgroundColor"] as? String == "rgb(120, 20, 60)", "the designer's look stays")
        #expect(Self.value("holder", in: pass) == "Grace Hopper")
        #expect(Self.value("seatInfo", in: pass) == "B7")
        #expect(Self.value("eventTitle", in: pass) == "Autumn Gala")
        #expect(Self.value("location", in: pass) == "Harbour Hall")
        #expect(Self.value("startDate", in: pass) == "2027-10-02T19:30:00+02:00", "the start in the event's zone")
        #expect(Self.value("tier", in: pass) == "Gold", "an unmapped field keeps the designer's value")
        let strings = PassArchive.strings(in: pass)
        #expect(!strings.contains("John Appleseed") && !strings.contains("SAMPLE-BARCODE"), "no sample of the designer is left where ticket data belongs")

        // Folder templates keep working beside it.
        let plain = try app.createEvent()
        let plainPass = try PassArchive.passJSON(try Self.download(app, serial: try app.issueTicket(event: plain)))
        #expect(Self.value("event", in: plainPass) == "Swift Night")
    }

    @Test("broken archives and bad names are refused with every reason, and nothing is stored", arguments: Backend.allCases)
    func refusals(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let cases: [(String, [UInt8], [String])] = [
            ("no pass.json", try DesignerFolder.zip(try DesignerFolder.files { $0["pass.json"] = nil }), ["has no pass.json"]),
            ("broken JSON", try DesignerFolder.zip(try DesignerFolder.files { $0["pass.json"] = Array(#"{"formatVersion": 1,"#.utf8) }), ["pass.json"]),
            ("no icon", try DesignerFolder.zip(try DesignerFolder.files { files in for scale in ["", "@2x", "@3x"] { files["icon\(scale).png"] = nil } }), ["has no icon"]),
            (
                "no pass.json and no icon",
                try DesignerFolder.zip(try DesignerFolder.files { files in
                    files["pass.json"] = nil
                    for scale in ["", "@2x", "@3x"] { files["icon\(scale).png"] = nil }
                }), ["has no pass.json", "has no icon"]
            ),
            ("not a zip", Array("just some text, not an archive".utf8), ["not a readable zip archive"]),
            ("unsafe paths", try DesignerFolder.hostileArchive(names: ["pass.json", "../evil.png", "/etc/cron.d/evil"]), ["../evil.png: leaves the archive's folder", "/etc/cron.d/evil: has an absolute path"]),
            ("empty", [], ["archive: is empty"]),
        ]
        for (name, archive, reasons) in cases {
            let response = try DesignerFolder.upload(app, archive, name: "broken")
            #expect(response.status == 400, "\(name): \(response.status) \(response.text)")
            #expect(response.errorCode == "invalid_fields", "\(name)")
            for reason in reasons { #expect(response.text.contains(reason), "\(name) is refused naming \(reason): \(response.text)") }
        }
        let good = try DesignerFolder.archive()
        for (name, words) in [("Bad_Name", "lowercase letters"), ("-gala", "lowercase letters"), ("event-ticket", "templates folder"), (String(repeating: "a", count: 65), "64")] {
            let response = try DesignerFolder.upload(app, good, name: name)
            #expect(response.status == 400 && response.text.contains("name: ") && response.text.contains(words), "\(name): \(response.text)")
        }
        let missingName = try app.request(
            "POST", "/admin/v1/templates", headers: [("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "application/zip")], body: good
        )
        #expect(missingName.status == 400 && missingName.text.contains("name: is required"), "\(missingName.text)")
        // A name and an archive both wrong: both reasons in one answer.
        let both = try DesignerFolder.upload(app, Array("text".utf8), name: "Bad")
        #expect(both.status == 400 && both.text.contains("name: ") && both.text.contains("archive: "), "\(both.text)")
        #expect(try Self.storedCount(app) == 0, "nothing was stored")
        #expect(try app.admin("POST", "/admin/v1/events", json: #"{"name":"X","venue":"Y","startsAt":"2027-03-01T19:00:00Z","template":"broken"}"#).status == 400)

        // A viewer may read templates but not upload one.
        let viewer = try AdminRoleTests.token(app, role: .viewer)
        #expect(try DesignerFolder.upload(app, good, name: "gala", token: viewer).status == 403)
        #expect(try app.request("GET", "/admin/v1/templates", headers: [("Authorization", "Bearer \(viewer)")]).status == 200)
        #expect(try Self.storedCount(app) == 0)
    }

    @Test("a new mapping re-pushes the events using the template; the phone gets the pass with the new mapping", arguments: Backend.allCases)
    func mappingChangeRepushes(backend: Backend) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
        defer { app.stop(); fake.shutdown() }
        try #require(try DesignerFolder.upload(app, try DesignerFolder.archive(), name: "gala").status == 201)
        let event = try Self.createEvent(app, template: "gala")
        let serial = try app.issueTicket(event: event, attendee: "Grace Hopper", seat: "B7")
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        let (_, _, tag) = try phone.changedSerials()
        let before = try phone.fetch(serial)
        let lastModified = try #require(before.header("Last-Modified"))
        #expect(Self.value("tier", in: try PassArchive.passJSON(before.body)) == "Gold")
        let pushesBefore = fake.pushes.count

        // Refusals change nothing.
        for (body, field) in [
            (#"{"mapping": {"nope": "seat"}}"#, "mapping.nope"), (#"{"mapping": {"tier": "shoeSize"}}"#, "mapping.tier"),
            (#"{"mapping": {"tier": "extra.voidReason"}}"#, "mapping.tier"), (#"{"mapping": {"tier": 3}}"#, "mapping.tier"), (#"{}"#, "mapping"),
            (#"{"mapping": {}, "extra": 1}"#, "extra"),
        ] {
            let refused = try app.admin("PUT", "/admin/v1/templates/gala/mapping", json: body)
            #expect(refused.status == 400 && refused.text.contains("\(field):"), "\(body): \(refused.status) \(refused.text)")
        }
        #expect(try app.admin("PUT", "/admin/v1/templates/event-ticket/mapping", json: #"{"mapping": {}}"#).errorCode == "folder_template")
        #expect(try app.admin("PUT", "/admin/v1/templates/none/mapping", json: #"{"mapping": {}}"#).status == 404)
        #expect(try app.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 5) }.isEmpty)

        let mapping = #"{"mapping": {"eventTitle": "eventName", "startDate": "startsAt", "location": "venue", "holder": "constant", "seatInfo": "seat", "tier": "extra.tier"}}"#
        let saved = try app.admin("PUT", "/admin/v1/templates/gala/mapping", json: mapping)
        try #require(saved.status == 200, "\(saved.text)")
        #expect(try Self.nonConformance(saved.body, to: "PassTemplateChange") == nil, "the answer is as openapi.yaml states")
        let jobs = try #require(saved.jsonObject?["jobs"] as? [[String: Any]])
        #expect(jobs.count == 1, "one event uses the template")
        #expect((saved.jsonObject?["template"] as? [String: Any])?["extraFields"] as? [String] == ["tier"])
        let job = try #require(jobs.first?["id"] as? String)
        try await eventually("the job is done and the phone pushed", timeout: 60) {
            try app.admin("GET", "/admin/v1/jobs/\(job)").jsonObject?["state"] as? String == "done" && fake.pushes.count > pushesBefore
        }
        #expect(fake.pushes.last?.token == phone.pushToken)
        #expect(try phone.changedSerials(since: tag).serials == [serial])
        let after = try phone.fetch(serial, ifModifiedSince: lastModified)
        #expect(after.status == 200 && after.header("Last-Modified") != lastModified, "never a 304 for a changed bundle")
        let pass = try PassArchive.passJSON(after.body)
        #expect(Self.value("holder", in: pass) == "John Appleseed", "the field now keeps the designer's value")
        #expect(Self.value("tier", in: pass) == "", "a ticket without the new ticket field shows it empty")
        try EventDesignTests.verifySignature(try PassArchive.files(after.body), root: app.certificates.rootCertificate)

        // The ticket field the mapping declared is one tickets take.
        let tiered = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName": "Ada", "extra": {"tier": "Platinum"}}"#)
        try #require(tiered.status == 201, "\(tiered.text)")
        let tieredPass = try PassArchive.passJSON(try Self.download(app, serial: try #require(tiered.jsonObject?["serialNumber"] as? String)))
        #expect(Self.value("tier", in: tieredPass) == "Platinum")

        // The same mapping again changes no pass and starts no job.
        let again = try app.admin("PUT", "/admin/v1/templates/gala/mapping", json: mapping)
        #expect(again.status == 200 && (again.jsonObject?["jobs"] as? [Any])?.isEmpty == true, "\(again.text)")
    }

    @Test("uploading under the same name replaces the archive, keeps the mapping of its fields and re-pushes the events", arguments: Backend.allCases)
    func replaceRepushes(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        try #require(try DesignerFolder.upload(app, try DesignerFolder.archive(), name: "gala").status == 201)
        let chosen = try app.admin("PUT", "/admin/v1/templates/gala/mapping", json: #"{"mapping": {"holder": "attendeeName", "tier": "serialNumber"}}"#)
        try #require(chosen.status == 200, "\(chosen.text)")
        let event = try Self.createEvent(app, template: "gala")
        let serial = try app.issueTicket(event: event)
        let revision = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") }).revision

        let replaced = try DesignerFolder.upload(app, try DesignerFolder.archive(background: "rgb(10, 90, 40)"), name: "gala")
        try #require(replaced.status == 200, "\(replaced.text)")
        let template = try #require(replaced.jsonObject?["template"] as? [String: Any])
        #expect((template["mapping"] as? [String: String])?["tier"] == "serialNumber", "a field still there keeps its mapping")
        #expect((replaced.jsonObject?["jobs"] as? [Any])?.count == 1)
        try await eventually("the event's passes are re-pushed", timeout: 60) {
            try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") }?.revision ?? 0 > revision
        }
        let pass = try PassArchive.passJSON(try Self.download(app, serial: serial))
        #expect(pass["backgroundColor"] as? String == "rgb(10, 90, 40)")
        #expect(Self.value("tier", in: pass) == serial)
        // The same archive again: nothing changes, nothing is pushed.
        let same = try DesignerFolder.upload(app, try DesignerFolder.archive(background: "rgb(10, 90, 40)"), name: "gala")
        #expect(same.status == 200 && (same.jsonObject?["jobs"] as? [Any])?.isEmpty == true, "\(same.text)")
        // A broken replacement is refused and the template stays as it was.
        let broken = try DesignerFolder.upload(app, try DesignerFolder.zip(try DesignerFolder.files { $0["pass.json"] = nil }), name: "gala")
        #expect(broken.status == 400)
        #expect(try PassArchive.passJSON(try Self.download(app, serial: serial))["backgroundColor"] as? String == "rgb(10, 90, 40)")
    }

    @Test("a template uploaded on one instance builds passes on another, which sees a new mapping at once", arguments: [Backend.postgres])
    func everyInstance(backend: Backend) async throws {
        let first = try TestApp.start(backend)
        defer { first.stop() }
        let second = try TestApp.start(backend, databaseURL: first.databaseURL, certificates: first.certificates)
        defer { second.stop() }
        try #require(try DesignerFolder.upload(first, try DesignerFolder.archive(), name: "gala").status == 201)
        let event = try Self.createEvent(second, template: "gala")
        let serial = try second.issueTicket(event: event, attendee: "Grace Hopper")
        #expect(Self.value("holder", in: try PassArchive.passJSON(try Self.download(second, serial: serial))) == "Grace Hopper")
        let options = try second.admin("GET", "/admin/v1/templates").jsonObject?["templates"] as? [[String: Any]]
        #expect(options?.contains { $0["name"] as? String == "gala" } == true)

        let revision = try #require(try second.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: second.passType, serialNumber: "\(serial)") }).revision
        try #require(try first.admin("PUT", "/admin/v1/templates/gala/mapping", json: #"{"mapping": {"holder": "serialNumber"}}"#).status == 200)
        // The re-push bumps the pass; whichever instance builds it then uses the new mapping.
        try await eventually("the pass is re-pushed", timeout: 60) {
            try second.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: second.passType, serialNumber: "\(serial)") }?.revision ?? 0 > revision
        }
        let pass = try PassArchive.passJSON(try Self.download(second, serial: serial))
        #expect(Self.value("holder", in: pass) == serial)
    }
}

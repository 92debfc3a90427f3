import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The dashboard's Templates page over HTTP, as a browser posts its forms: a zipped Pass Designer
/// template uploaded with the multipart form lands on its mapping form, the mapping form saves,
/// a refused upload shows every reason and stores nothing, the event form offers the template.
@Suite("Dashboard: templates from Pass Designer", .offCooperativePool, .timeLimit(.minutes(4)))
struct DashboardTemplatesTests {
    /// The upload form as a browser sends it: `multipart/form-data` with the zip as a file part.
    static func uploadForm(csrf: String, name: String, archive: [UInt8]) -> (body: [UInt8], contentType: String) {
        let boundary = "----template\(UUID().uuidString.prefix(8))"
        func field(_ field: String, _ value: String) -> [UInt8] {
            Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"\r\n\r\n\(value)\r\n".utf8)
        }
        let file = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"Gala.zip\"\r\nContent-Type: application/zip\r\n\r\n".utf8)
        return (field("csrf", csrf) + field("name", name) + file + archive + Array("\r\n--\(boundary)--\r\n".utf8), "multipart/form-data; boundary=\(boundary)")
    }

    static func upload(_ client: DashboardClient, csrf: String, name: String, archive: [UInt8]) throws -> TestResponse {
        let (body, contentType) = Self.uploadForm(csrf: csrf, name: name, archive: archive)
        return try client.app.request(
            "POST", "/admin/templates", headers: [("Cookie", client.cookie ?? ""), ("Content-Type", contentType)], body: body
        )
    }

    @Test("upload, mapping form, save: the passes show the mapping chosen; the event form offers the template", arguments: Backend.allCases)
    func uploadAndMap(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let (client, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let events = try client.get("/admin/")
        #expect(events.text.contains(#"href="/admin/templates""#), "the events page links to the templates")
        let list = try client.get("/admin/templates")
        #expect(list.status == 200 && list.text.contains("event-ticket") && list.text.contains(#"id="upload-template""#))
        let csrf = try #require(DashboardClient.csrf(in: list.text))

        let uploaded = try Self.upload(client, csrf: csrf, name: "spring-gala", archive: try DesignerFolder.archive())
        #expect(uploaded.status == 303, "\(uploaded.status) \(uploaded.text)")
        let location = try #require(uploaded.header("Location"))
        #expect(location == "/admin/templates/spring-gala?notice=template-uploaded")
        let page = try client.get(location)
        #expect(page.status == 200)
        #expect(page.text.contains("Template uploaded."))
        // Every field found, with the designer's sample and the guess selected.
        for sample in ["John Appleseed", "Row C, 12", "Riverside Hall", "Gold"] { #expect(page.text.contains(sample), "\(sample) is shown") }
        #expect(page.text.contains(#"name="mapping.holder""#) && page.text.contains(#"<option value="attendeeName" selected>"#))
        #expect(page.text.contains(#"<option value="extra.tier">"#), "a field can become a ticket field of its own")

        // The mapping form saves: the holder keeps the designer's value, the tier is the ticket's.
        let saved = try client.post(
            "/admin/templates/spring-gala/mapping",
            [("mapping.eventTitle", "eventName"), ("mapping.holder", "constant"), ("mapping.seatInfo", "seat"), ("mapping.tier", "extra.tier")], csrf: csrf
        )
        #expect(saved.status == 303 && saved.header("Location") == "/admin/templates/spring-gala?notice=mapping-saved", "\(saved.status) \(saved.text)")
        let mapping = try app.admin("GET", "/admin/v1/templates/spring-gala").jsonObject?["mapping"] as? [String: String]
        #expect(mapping?["holder"] == "constant" && mapping?["tier"] == "extra.tier" && mapping?["location"] == "constant")

        // A refused mapping shows the form again with the problem under its field.
        let refused = try client.post("/admin/templates/spring-gala/mapping", [("mapping.tier", "shoeSize")], csrf: csrf)
        #expect(refused.status == 400 && refused.text.contains("must be one of"), "\(refused.status)")
        #expect(refused.text.contains(#"class="field-error""#))

        // The event form offers every template, the uploaded one among them.
        let form = try client.get("/admin/events/new")
        #expect(form.text.contains(#"<option value="spring-gala">spring-gala</option>"#))
        #expect(form.text.contains(#"<option value="event-ticket" selected>event-ticket</option>"#))
        let created = try client.post(
            "/admin/events", [("name", "Spring Gala"), ("venue", "Riverside Hall"), ("startsAt", "2027-03-14T19:30"), ("timeZone", "Europe/Paris"), ("template", "spring-gala"), ("language", "en")],
            csrf: csrf
        )
        #expect(created.status == 303, "\(created.status) \(created.text)")
        let event = try #require(try app.store.withSession(.read) { try $0.events.events(matching: EventFilter(), after: nil, limit: 5) }.first)
        #expect(event.template == "spring-gala")
    }

    @Test("a refused upload shows every reason under the file input and stores nothing; a viewer sees no upload form", arguments: Backend.allCases)
    func refusedUpload(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let (client, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let csrf = try client.csrf(on: "/admin/templates")
        let broken = try DesignerFolder.zip(try DesignerFolder.files { files in
            files["pass.json"] = nil
            for scale in ["", "@2x", "@3x"] { files["icon\(scale).png"] = nil }
        })
        let response = try Self.upload(client, csrf: csrf, name: "Broken Name", archive: broken)
        #expect(response.status == 400)
        #expect(response.text.contains("has no pass.json") && response.text.contains("has no icon"), "both reasons are shown")
        #expect(response.text.contains("lowercase letters"), "and the name's")
        #expect(response.text.contains(#"id="f-file-error""#) && response.text.contains(#"value="Broken Name""#))
        let notZip = try Self.upload(client, csrf: csrf, name: "gala", archive: Array("<script>alert(1)</script>".utf8))
        #expect(notZip.status == 400 && notZip.text.contains("not a readable zip archive"))
        #expect(!notZip.text.contains("<script>alert"))
        #expect(try app.store.withSession(.read) { try $0.templates.storedTemplateNames() }.isEmpty)

        let (viewer, _) = try DashboardClient.signIn(app, token: try AdminRoleTests.token(app, role: .viewer))
        let page = try viewer.get("/admin/templates")
        #expect(page.status == 200 && page.text.contains("event-ticket") && !page.text.contains(#"id="upload-template""#))
        let forbidden = try Self.upload(viewer, csrf: try viewer.csrf(on: "/admin/templates"), name: "gala", archive: try DesignerFolder.archive())
        #expect(forbidden.status == 403)
        #expect(try viewer.get("/admin/templates/nope").status == 404)
        #expect(try app.store.withSession(.read) { try $0.templates.storedTemplateNames() }.isEmpty)
    }
}

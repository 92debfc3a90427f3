import ByteEncoding
import Certificates
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The design page over HTTP on both backends: a viewer looks, an admin saves (with the CSRF
/// token); uploads and fields are checked first and a refusal stores nothing; a good save changes
/// every pass (a push, new colours and images in the bundle) and starts no change message; an
/// image can be removed again; the images are served, publicly, for the pages; the attendee's
/// page wears the design.
@Suite("Dashboard: the design page", .offCooperativePool, .timeLimit(.minutes(6)))
struct DashboardDesignTests {
    /// A file part of a form: field name, file name, bytes.
    typealias File = (name: String, fileName: String, bytes: [UInt8])

    /// A `multipart/form-data` body as a browser sends the design form (every file input, empty
    /// ones as an empty part without a name).
    static func multipart(_ fields: [(String, String)], files: [File], boundary: String = "design-boundary") -> [UInt8] {
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        for file in files {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.fileName)\"\r\nContent-Type: image/png\r\n\r\n".utf8)
            body += file.bytes + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }

    /// POSTs the design form of `event` with `fields`, `files` and the CSRF token (nil: none).
    static func save(
        _ client: DashboardClient, event: String, _ fields: [(String, String)], files: [File] = [], csrf: String?
    ) throws -> TestResponse {
        var headers = [("Content-Type", "multipart/form-data; boundary=design-boundary")]
        if let cookie = client.cookie { headers.append(("Cookie", cookie)) }
        let all = fields + (csrf.map { [("csrf", $0)] } ?? [])
        return try client.app.request("POST", "/admin/events/\(event)/design", headers: headers, body: Self.multipart(all, files: files))
    }

    /// The fields of the form as a page shows them (the stored design's values), as a browser
    /// would submit them unchanged.
    static func unchangedFields(_ page: String) -> [(String, String)] {
        var fields: [(String, String)] = []
        for match in page.matches(of: /<input id="(f-[^"]+)" name="([^"]+)" type="(?:text|url|email|tel)" value="([^"]*)"/) {
            fields.append((String(match.2), String(match.3).replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")))
        }
        return fields
    }

    static func design(_ app: TestApp, _ event: String) throws -> [String: Any] {
        try #require(try app.admin("GET", "/admin/v1/events/\(event)/design").jsonObject)
    }

    /// Whether the event stores no design at all.
    static func hasNoDesign(_ app: TestApp, _ event: String) throws -> Bool {
        try app.store.withSession(.read) { try $0.events.event(id: event) }?.design == nil
    }

    @Test("the event page links the design page; a viewer sees it with the preview and no way to save", arguments: Backend.allCases)
    func viewerLooks(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent(name: "Autumn Jazz", venue: "Harbour Hall")
        let (viewer, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .viewer))
        let eventPage = try viewer.get("/admin/events/\(event)")
        #expect(eventPage.text.contains(#"href="/admin/events/\#(event)/design""#), "the event page links the design")
        let page = try viewer.get("/admin/events/\(event)/design")
        #expect(page.status == 200, "\(page.status) \(page.text.prefix(300))")
        #expect(page.text.contains(#"id="design-preview""#) && page.text.contains(#"id="preview-front""#))
        #expect(page.text.contains("Autumn Jazz"), "the sample pass shows the event")
        #expect(page.text.contains(#"data-background="rgb(28, 36, 64)""#), "the template's colours when the event has no design")
        #expect(page.text.contains("data:image/png;base64,"), "the template's images, inline")
        #expect(page.text.contains("<fieldset disabled") && !page.text.contains("Save design"), "a viewer cannot save")
        #expect(page.text.contains(#"<script src="/assets/design.js" defer></script>"#))
        let script = try app.request("GET", "/assets/design.js")
        #expect(script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(script.text.contains("style.setProperty"), "the preview's colours go through the CSSOM")
        expectSecurityHeaders(page, "design page")
        #expect(try app.request("GET", "/admin/events/\(event)/design").status == 303, "signed out: to the sign-in page")
        #expect(try viewer.get("/admin/events/no-such-event/design").status == 404)
    }

    @Test("saving needs an admin's session and the CSRF token; a refused save changes nothing", arguments: Backend.allCases)
    func saveNeedsAdminAndCSRF(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let (viewer, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .viewer))
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let logo = (name: "images.logo", fileName: "logo.png", bytes: try DesignImages.png(480, 150))
        let viewerCSRF = try viewer.csrf(on: "/admin/events/\(event)/design")
        let byViewer = try Self.save(viewer, event: event, [("backgroundColor", "#102030")], files: [logo], csrf: viewerCSRF)
        #expect(byViewer.status == 403 && byViewer.text.contains("needs an admin token"), "\(byViewer.status)")
        let noCSRF = try Self.save(admin, event: event, [("backgroundColor", "#102030")], files: [logo], csrf: nil)
        #expect(noCSRF.status == 403, "\(noCSRF.status)")
        let wrongCSRF = try Self.save(admin, event: event, [("backgroundColor", "#102030")], files: [logo], csrf: viewerCSRF)
        #expect(wrongCSRF.status == 403, "another session's token: \(wrongCSRF.status)")
        let signedOut = try Self.save(DashboardClient(app: app, cookie: nil), event: event, [("backgroundColor", "#102030")], csrf: nil)
        #expect(signedOut.status == 403)
        #expect(try Self.hasNoDesign(app, event), "nothing was saved")
        #expect(try EventDesignTests.imageCount(app) == 0, "no image was stored")
    }

    @Test("a refused upload or field shows each issue under its field and stores nothing, not even the good uploads", arguments: Backend.allCases)
    func refusedSave(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let csrf = try admin.csrf(on: "/admin/events/\(event)/design")
        let goodLogo = (name: "images.logo", fileName: "logo.png", bytes: try DesignImages.png(480, 150))

        let uploads = try Self.save(admin, event: event, [("backgroundColor", "#102030"), ("logoText", "Harbour <Hall>")], files: [
            (name: "images.icon", fileName: "notes.txt", bytes: Array("not an image at all".utf8)),
            (name: "images.strip", fileName: "square.png", bytes: try DesignImages.png(1200, 1200)),
            goodLogo,
        ], csrf: csrf)
        #expect(uploads.status == 400, "\(uploads.status)")
        try DashboardFormRefusalTests.expectIssue(
            "images.icon", "The file is not an image; upload a PNG or JPEG image.", in: uploads.text
        )
        #expect(try DashboardFormRefusalTests.field("images.strip", in: uploads.text).contains("The strip must be 375:98"), "the strip's problem is under it")
        #expect(!(try DashboardFormRefusalTests.field("images.logo", in: uploads.text)).contains("field-error"), "the good logo is not marked")
        #expect(uploads.text.contains(#"value="Harbour &lt;Hall&gt;""#), "the typed values are kept, escaped")
        #expect(uploads.text.contains("Nothing was saved"))
        #expect(try EventDesignTests.imageCount(app) == 0, "no image stored, the good one neither")
        #expect(try Self.hasNoDesign(app, event))

        let fields = try Self.save(admin, event: event, [
            ("backgroundColor", "navy"), ("details.venueLocation.latitude", "91"), ("details.venueLocation.longitude", "0"),
            ("details.guide.bagPolicyURL", "http://example.com/bags"), ("details.kind.type", "livePerformance"), ("details.kind.performerNames", "Ana\n\u{1}Bad"),
        ], files: [goodLogo], csrf: csrf)
        #expect(fields.status == 400)
        try DashboardFormRefusalTests.expectIssue("backgroundColor", "must be a colour as #rrggbb or rgb(r, g, b) with each part 0–255", in: fields.text)
        try DashboardFormRefusalTests.expectIssue("details.venueLocation.latitude", "must be between -90 and 90 degrees", in: fields.text)
        try DashboardFormRefusalTests.expectIssue("details.guide.bagPolicyURL", "must use https, found http:", in: fields.text)
        #expect(try DashboardFormRefusalTests.field("details.kind.performerNames", in: fields.text).contains("line 2: must not contain control characters"))
        #expect(try EventDesignTests.imageCount(app) == 0, "the logo of a refused form is not stored")
        #expect(try Self.hasNoDesign(app, event))

        let poster = try Self.save(admin, event: event, [("details.usePoster", "true")], csrf: csrf)
        #expect(poster.status == 400)
        #expect(try DashboardFormRefusalTests.field("details.venueRoom", in: poster.text).contains("a poster needs semantics.venueRoom"))
        #expect(DashboardPagesTests.element("f-details-usePoster-error", in: poster.text)?.contains("a poster needs an artwork image") == true)
        #expect(try DashboardFormRefusalTests.field("details.nfc.encryptionPublicKey", in: poster.text).contains("NFC"))

        let unreadable = try admin.app.request(
            "POST", "/admin/events/\(event)/design", headers: [("Content-Type", "multipart/form-data; boundary=x"), ("Cookie", admin.cookie ?? "")],
            body: Array("--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated".utf8)
        )
        #expect(unreadable.status == 400 && unreadable.header("Content-Type")?.hasPrefix("text/html") == true, "a malformed body is a 400 page")
        let (tooLarge, _) = try DashboardPreflightTests.upload(
            app, "/admin/events/\(event)/design", cookie: admin.cookie, size: DashboardController.designBodyLimit + 1, contentType: "multipart/form-data; boundary=b"
        )
        #expect(tooLarge.status == 413 && tooLarge.text.contains("upload them in turn"), "\(tooLarge.status)")
    }

    @Test("a good save pushes every phone a pass in the new colours and images, with no field changed; removing an image brings back the template's", arguments: Backend.allCases)
    func goodSave(backend: Backend) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
        defer { app.stop(); fake.shutdown() }
        let event = try app.createEvent(name: "Autumn Jazz", venue: "Harbour Hall")
        let serial = try app.issueTicket(event: event)
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        let before = try phone.fetch(serial)
        try #require(before.status == 200)
        let passBefore = try PassArchive.passJSON(before.body)
        let pushesBefore = fake.pushes.count

        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let page = try admin.get("/admin/events/\(event)/design")
        let csrf = try #require(DashboardClient.csrf(in: page.text))
        var fields: [(String, String)] = [
            ("backgroundColor", "#102030"), ("foregroundColor", "rgb(250, 250, 250)"), ("labelColor", "#ffcc00"), ("logoText", "Harbour Hall"),
            ("details.venueRegionName", "Lisbon"), ("details.venueLocation.latitude", "38.7071"), ("details.venueLocation.longitude", "-9.1359"),
        ]
        let given = Set(fields.map(\.0))
        fields += Self.unchangedFields(page.text).filter { !given.contains($0.0) }
        let logoUpload = try DesignImages.png(480, 150)
        let stripUpload = try DesignImages.png(1125, 294)
        let saved = try Self.save(admin, event: event, fields, files: [
            (name: "images.logo", fileName: "logo.png", bytes: logoUpload), (name: "images.strip", fileName: "strip.png", bytes: stripUpload),
            (name: "images.thumbnail", fileName: "", bytes: []),
        ], csrf: csrf)
        #expect(saved.status == 303, "\(saved.status) \(saved.text.prefix(2_000))")
        let location = try #require(saved.header("Location"))
        #expect(location.hasPrefix("/admin/events/\(event)/design?notice=design-saved&job="), "\(location)")
        let job = try #require(location.split(separator: "=").last.map(String.init))
        let after = try admin.get(location)
        #expect(after.text.contains("Design saved.") && after.text.contains("Every issued pass is being updated"))
        try await eventually("the re-push job is done and the phone pushed", timeout: 60) {
            try app.admin("GET", "/admin/v1/jobs/\(job)").jsonObject?["state"] as? String == "done" && fake.pushes.count > pushesBefore
        }
        #expect(fake.pushes.last?.token == phone.pushToken)

        let design = try Self.design(app, event)
        let images = try #require(design["images"] as? [String: String])
        #expect(Set(images.keys) == ["logo", "strip"], "an empty file input stores nothing: \(images)")
        let logo = try #require(try app.store.withSession(.read) { try $0.images.passImage(id: images["logo"] ?? "") })
        let strip = try #require(try app.store.withSession(.read) { try $0.images.passImage(id: images["strip"] ?? "") })
        let fetched = try phone.fetch(serial)
        let files = try PassArchive.files(fetched.body)
        let pass = try PassArchive.passJSON(fetched.body)
        #expect(pass["backgroundColor"] as? String == "rgb(16, 32, 48)")
        #expect(pass["foregroundColor"] as? String == "rgb(250, 250, 250)")
        #expect(pass["labelColor"] as? String == "rgb(255, 204, 0)")
        #expect(pass["logoText"] as? String == "Harbour Hall")
        #expect((pass["semantics"] as? [String: Any])?["venueRegionName"] as? String == "Lisbon")
        #expect(files["logo@2x.png"] == logo.image2x && files["strip.png"] == strip.image1x && files["strip@3x.png"] == strip.image3x)
        #expect(
            (try JSONSerialization.data(withJSONObject: pass["eventTicket"] ?? [:], options: .sortedKeys))
                == (try JSONSerialization.data(withJSONObject: passBefore["eventTicket"] ?? [:], options: .sortedKeys)),
            "no field's value changed, so Wallet shows no change message"
        )
        try EventDesignTests.verifySignature(files, root: app.certificates.rootCertificate)

        // The design page shows what was saved: the stored images and the values.
        let shown = try admin.get("/admin/events/\(event)/design")
        #expect(shown.text.contains(#"src="/admin/images/\#(strip.id)?scale=2""#), "the preview shows the stored strip")
        #expect(shown.text.contains(#"name="remove.strip""#) && shown.text.contains(##"value="#102030""##))

        // Removing the strip: the template's comes back; the logo stays (no new file given).
        let revision = try #require(try app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["revision"] as? Int)
        let removed = try Self.save(admin, event: event, Self.unchangedFields(shown.text) + [("remove.strip", "true")], csrf: csrf)
        #expect(removed.status == 303, "\(removed.status) \(removed.text.prefix(1_000))")
        #expect(try Self.design(app, event)["images"] as? [String: String] == ["logo": logo.id])
        #expect(try #require(try app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["revision"] as? Int) > revision)
        let template = try Data(contentsOf: PassServerExecutable.packageRoot.appendingPathComponent("Passes/event-ticket/strip@2x.png"))
        try await eventually("the pass carries the template's strip again", timeout: 60) {
            let files = try PassArchive.files(try phone.fetch(serial).body)
            return files["strip@2x.png"] == Array(template) && files["logo@2x.png"] == logo.image2x
        }
        // Saving the form unchanged changes nothing and starts no job.
        let again = try Self.save(admin, event: event, Self.unchangedFields(try admin.get("/admin/events/\(event)/design").text), csrf: csrf)
        #expect(again.status == 303 && again.header("Location")?.contains("job=") == false, "\(again.header("Location") ?? "")")
    }

    @Test("uploads are palette PNGs unless full colour is ticked; the page gives each image's bytes and the design's total", arguments: Backend.allCases)
    func imageColorsAndWeight(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let page = try admin.get("/admin/events/\(event)/design")
        let csrf = try #require(DashboardClient.csrf(in: page.text))
        #expect(page.text.contains(#"name="imagesFullColor""#) && page.text.contains("Keep new uploads in full colour"))
        #expect(DashboardPagesTests.element("images-weight", in: page.text) == "This design adds no images of its own to the pass.")

        let strip = (name: "images.strip", fileName: "strip.png", bytes: try DesignImages.png(1125, 294))
        let logo = (name: "images.logo", fileName: "logo.png", bytes: try DesignImages.png(480, 150))
        #expect(try Self.save(admin, event: event, Self.unchangedFields(page.text), files: [strip], csrf: csrf).status == 303)
        let paletteStrip = try #require((try Self.design(app, event)["images"] as? [String: String])?["strip"])
        let storedStrip = try #require(try app.store.withSession(.read) { try $0.images.passImage(id: paletteStrip) })
        #expect(storedStrip.image3x[25] == 3, "without the box ticked the strip is a palette PNG")

        let shown = try admin.get("/admin/events/\(event)/design")
        let fullColour = Self.unchangedFields(shown.text) + [("imagesFullColor", "true")]
        #expect(try Self.save(admin, event: event, fullColour, files: [logo], csrf: csrf).status == 303)
        let images = try #require(try Self.design(app, event)["images"] as? [String: String])
        let storedLogo = try #require(try app.store.withSession(.read) { try $0.images.passImage(id: images["logo"] ?? "") })
        #expect(storedLogo.image3x[25] == 2, "with the box ticked the logo is in full colour")
        #expect(images["strip"] == paletteStrip, "the strip stored before is kept as it was")

        let weighed = try admin.get("/admin/events/\(event)/design").text
        let total = storedStrip.byteCount + storedLogo.byteCount
        #expect(DashboardPagesTests.element("images-weight", in: weighed) == "This design&#39;s images add \(DesignPage.kilobytes(total)) to every pass.")
        #expect(weighed.contains("This event's image, \(DesignPage.kilobytes(storedLogo.byteCount)) in every pass."))
        #expect(DesignPage.kilobytes(1_499) == "1 KB" && DesignPage.kilobytes(312_400) == "312 KB" && DesignPage.kilobytes(1_640_000) == "1.6 MB")
    }

    @Test("the images are served: publicly by id and scale, cacheable for good; unknown and malformed ids a JSON 404; the dashboard's copy needs a session", arguments: Backend.allCases)
    func imageRoutes(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let id = try #require(try DesignImages.upload(app, try DesignImages.png(480, 150), kind: "logo").jsonObject?["id"] as? String)
        let stored = try #require(try app.store.withSession(.read) { try $0.images.passImage(id: id) })
        for (scale, bytes) in [(nil, stored.image1x), ("1", stored.image1x), ("2", stored.image2x), ("3", stored.image3x)] {
            let response = try app.request("GET", "/images/\(id)" + (scale.map { "?scale=\($0)" } ?? ""))
            #expect(response.status == 200 && response.body == bytes, "scale \(scale ?? "none"): \(response.status)")
            #expect(response.header("Content-Type") == "image/png")
            #expect(response.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
        }
        for target in ["/images/" + String(repeating: "0", count: 64), "/images/not-an-id", "/images/" + id.uppercased(), "/images/%3Cscript%3E"] {
            let response = try app.request("GET", target)
            #expect(response.status == 404 && response.errorCode == "not_found", "\(target): \(response.status) \(response.text)")
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        }
        let badScale = try app.request("GET", "/images/\(id)?scale=4")
        #expect(badScale.status == 400 && badScale.errorCode == "invalid_scale", "\(badScale.status) \(badScale.text)")
        #expect(try app.request("GET", "/images/\(id)?size=2").status == 400, "an unknown query parameter is refused")

        #expect(try app.request("GET", "/admin/images/\(id)").status == 401, "the dashboard's copy needs a session")
        let (viewer, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .viewer))
        let private2x = try viewer.get("/admin/images/\(id)?scale=2")
        #expect(private2x.status == 200 && private2x.body == stored.image2x)
        #expect(private2x.header("Cache-Control")?.hasPrefix("private") == true)
        #expect(try viewer.get("/admin/images/" + String(repeating: "a", count: 64)).status == 404)
    }

    @Test("the attendee's page wears the design's colours, logo and logo text, escaped; without a design the template's", arguments: Backend.allCases)
    func attendeePage(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent(name: "Autumn Jazz")
        let serial = try app.issueTicket(event: event)
        let link = try AdminSupport.path(of: try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String)
        let plain = try app.request("GET", link, headers: [("Accept", "text/html")])
        #expect(plain.status == 200)
        #expect(plain.text.contains(#"id="ticket-band""#) && plain.text.contains(#"fill="rgb(28, 36, 64)""#), "the template's colours")
        #expect(plain.text.contains(#"href="data:image/png;base64,"#), "the template's logo")

        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let csrf = try admin.csrf(on: "/admin/events/\(event)/design")
        let hostile = "<script>alert(1)</script>"
        let saved = try Self.save(admin, event: event, [("backgroundColor", "#102030"), ("foregroundColor", "#fafafa"), ("logoText", hostile)], files: [
            (name: "images.logo", fileName: "logo.png", bytes: try DesignImages.png(480, 150)),
        ], csrf: csrf)
        #expect(saved.status == 303, "\(saved.status)")
        let logo = try #require((try Self.design(app, event)["images"] as? [String: String])?["logo"])
        try await eventually("the ticket page shows the design", timeout: 60) {
            let page = try app.request("GET", link, headers: [("Accept", "text/html")])
            return page.text.contains(#"fill="rgb(16, 32, 48)""#)
        }
        let page = try app.request("GET", link, headers: [("Accept", "text/html")])
        #expect(page.text.contains(#"href="/images/\#(logo)?scale=2""#), "the design's logo, from the public route")
        #expect(page.text.contains(#"fill="rgb(250, 250, 250)""#), "the logo text in the foreground colour")
        #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !page.text.contains(hostile), "the logo text is text")
        #expect(!page.text.contains("<script"), "the ticket page has no script")
        #expect(try app.request("GET", "/images/\(logo)?scale=2").status == 200, "the logo the page names is served to anyone")
        expectSecurityHeaders(page, "ticket page")
    }
}

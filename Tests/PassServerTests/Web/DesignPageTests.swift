import Foundation
import HTTPServer
import PassBundle
import Testing

@testable import PassServer
@testable import Storage

/// The design page and its form as functions of their values, without a store or HTTP: the
/// preview draws the sample pass in its colours with its images and fields, the form holds the
/// stored design and reads a submission back into one, and nothing typed reaches the markup raw.
@Suite("Dashboard: the design page as a function of its values", .offCooperativePool)
struct DesignPageTests {
    static let passJSON = #"""
        {"formatVersion": 1, "passTypeIdentifier": "pass.com.example.tickets", "serialNumber": "S1", "teamIdentifier": "TEAM123456",
         "organizationName": "Example", "description": "Ticket", "logoText": "Harbour Hall", "backgroundColor": "rgb(16, 32, 48)",
         "foregroundColor": "rgb(250, 250, 250)", "labelColor": "rgb(255, 204, 0)",
         "barcodes": [{"format": "PKBarcodeFormatQR", "message": "S1~x", "messageEncoding": "iso-8859-1", "altText": "S1-CHECK"}],
         "eventTicket": {"headerFields": [{"key": "status", "label": "STATUS", "value": "Valid"}],
                         "primaryFields": [{"key": "event", "label": "EVENT", "value": "Autumn Jazz"}],
                         "secondaryFields": [{"key": "venue", "label": "VENUE", "value": "Harbour Hall"}],
                         "auxiliaryFields": [{"key": "seat", "label": "SEAT_LABEL", "value": "A-12"}],
                         "backFields": [{"key": "terms", "label": "Terms", "value": "No re-entry"}]}}
        """#

    static let templateJSON = passJSON.replacingOccurrences(of: "rgb(16, 32, 48)", with: "rgb(28, 36, 64)")
        .replacingOccurrences(of: "\"logoText\": \"Harbour Hall\"", with: "\"logoText\": \"Example\"")

    static let strip = String(repeating: "a", count: 64)

    static func preview(design: PassDesign = PassDesign(images: ["strip": strip]), event: Event = DashboardPagesTests.event()) throws -> DesignPreview {
        DesignPreview(
            definition: try PassDefinition.decode(Array(passJSON.utf8)), template: try PassDefinition.decode(Array(templateJSON.utf8)),
            strings: ["SEAT_LABEL": "Seat"], event: event, design: design,
            images: [.strip: "/admin/images/\(strip)?scale=2", .logo: "data:image/png;base64,iVBORw0K", .icon: "data:image/png;base64,aWNvbg=="],
            templateImages: [.logo: "data:image/png;base64,iVBORw0K", .icon: "data:image/png;base64,aWNvbg=="]
        )
    }

    static func page(
        visitor: DashboardSessions.Visitor = DashboardPagesTests.admin, design: PassDesign = PassDesign(images: ["strip": strip]),
        form: FormState? = nil
    ) throws -> String {
        DesignPage(
            event: DashboardPagesTests.event(), visitor: visitor, form: form ?? FormState(values: DesignForm.values(of: design)),
            storedImages: [.strip: strip], preview: try preview(design: design)
        ).render().markup
    }

    @Test("the preview wears the pass's colours and the template's for fallback, with its logo text, images and every field group")
    func preview() throws {
        let page = try Self.page()
        #expect(page.contains(#"data-background="rgb(16, 32, 48)" data-foreground="rgb(250, 250, 250)" data-label="rgb(255, 204, 0)""#))
        #expect(page.contains(#"data-template-background="rgb(28, 36, 64)""#), "a cleared colour falls back to the template's")
        #expect(page.contains(#"data-template-logo-text="Example""#))
        #expect(DashboardPagesTests.element("preview-logo-text", in: page) == "Harbour Hall")
        #expect(page.contains(#"class="wallet-pass has-strip""#), "a strip hides the background and thumbnail")
        #expect(page.contains(#"data-image="strip" data-current-src="/admin/images/\#(Self.strip)?scale=2" src="/admin/images/\#(Self.strip)?scale=2""#))
        #expect(page.contains(#"data-image="logo" data-current-src="data:image/png;base64,iVBORw0K" data-template-src="data:image/png;base64,iVBORw0K""#))
        #expect(page.contains(#"data-image="background" data-current-src="" hidden"#), "no background image: none drawn")
        for (group, label, value) in [("preview-header", "STATUS", "Valid"), ("preview-primary", "EVENT", "Autumn Jazz"),
                                      ("preview-secondary", "VENUE", "Harbour Hall"), ("preview-auxiliary", "SEAT", "A-12")] {
            let markup = try #require(page.range(of: #"id="\#(group)""#).map { String(page[$0.lowerBound...].prefix(400)) })
            #expect(markup.contains(#"<span class="pass-label">\#(label)</span><span class="pass-value">\#(value)</span>"#), "\(group): \(markup)")
        }
        #expect(page.contains("<dt>Terms</dt><dd>No re-entry</dd>"), "the back lists the back fields")
        #expect(page.contains(#"class="pass-barcode""#) && page.contains("S1-CHECK"), "the barcode area with its text")
        #expect(page.contains(#"id="preview-poster" aria-label="Poster of the pass" hidden"#), "no poster asked for: hidden")
        #expect(page.contains(#"<script src="/assets/design.js" defer></script>"#))
        #expect(!page.contains("style="), "no inline style (CSP)")

        var poster = PassDesign()
        poster.details.usePoster = true
        poster.details.eventLogoText = "Jazz Nights"
        let posterPage = try Self.page(design: poster)
        #expect(posterPage.contains(#"id="preview-poster" aria-label="Poster of the pass">"#), "the poster is drawn when asked for")
        #expect(DashboardPagesTests.element("preview-event-logo-text", in: posterPage) == "Jazz Nights")
        #expect(posterPage.contains("Classic ticket (other phones)"))
    }

    @Test("an admin gets a multipart form with every field, file inputs and removal of stored images; a viewer the same, disabled")
    func form() throws {
        let admin = try Self.page()
        #expect(admin.contains(#"<form method="post" action="/admin/events/ev1/design" enctype="multipart/form-data""#))
        #expect(admin.contains(#"value="csrf-admin""#))
        for name in ["backgroundColor", "foregroundColor", "labelColor", "logoText", "details.venueName", "details.venueRegionName", "details.venueRoom",
                     "details.venueLocation.latitude", "details.venueLocation.longitude", "details.entranceDescription", "details.kind.type",
                     "details.kind.performerNames", "details.kind.homeTeamAbbreviation", "details.admissionLevel", "details.guide.bagPolicyURL",
                     "details.featuredActions.0.url", "details.featuredActions.1.type", "details.usePoster", "details.eventLogoText",
                     "details.nfc.encryptionPublicKey"] {
            #expect(admin.contains(#"name="\#(name)""#), "no input \(name)")
        }
        for kind in ["icon", "logo", "strip", "background", "thumbnail", "artwork", "primaryLogo", "secondaryLogo"] {
            #expect(admin.contains(#"type="file" id="f-images-\#(kind)" name="images.\#(kind)" accept="image/png,image/jpeg""#), "no file input for \(kind)")
        }
        #expect(admin.contains(#"name="remove.strip""#), "a stored image can be removed")
        #expect(!admin.contains(#"name="remove.logo""#), "the template's logo is not the event's to remove")
        #expect(admin.contains(#"<img src="/admin/images/\#(Self.strip)?scale=1""#), "the stored strip is shown")
        #expect(admin.contains("Wallet ignores the background and the thumbnail when the pass has a strip."))
        #expect(admin.contains("at least 1125 × 294 pixels"), "each image says what it must be")
        #expect(admin.contains("Save design"))
        #expect(admin.contains(##"id="f-backgroundColor-picker" data-color-for="f-backgroundColor" value="#1c2440""##), "the picker starts at the template's colour")
        #expect(admin.contains(##"placeholder="#1c2440""##) && admin.contains("empty: the template&#39;s (#1c2440)"), "an empty colour is the template's")

        let viewer = try Self.page(visitor: DashboardPagesTests.viewer)
        #expect(!viewer.contains(#"method="post" action="/admin/events/ev1/design""#))
        #expect(viewer.contains("<fieldset disabled"), "a viewer's form cannot be changed")
        #expect(!viewer.contains("Save design"))
        #expect(viewer.contains(#"id="design-preview""#), "a viewer sees the preview")
    }

    @Test("a refused save shows each issue under its field, the typed values kept")
    func refused() throws {
        var state = FormState(values: ["backgroundColor": "navy", "details.venueRoom": "Main"])
        state.issues = [
            .init("backgroundColor", "must be a colour as #rrggbb or rgb(r, g, b) with each part 0–255"),
            .init("images.strip", "The strip must be 375:98 (width:height, within 2 %); this image is 1000×1000."),
            .init("pass", "the pass cannot be built"),
        ]
        state.status = 400
        let page = try Self.page(form: state)
        #expect(DashboardPagesTests.element("f-backgroundColor-error", in: page) == "must be a colour as #rrggbb or rgb(r, g, b) with each part 0–255")
        #expect(DashboardPagesTests.element("f-images-strip-error", in: page) == "The strip must be 375:98 (width:height, within 2 %); this image is 1000×1000.")
        #expect(page.contains(#"value="navy""#) && page.contains(#"value="Main""#))
        #expect(page.contains("Nothing was saved: pass: the pass cannot be built; and the fields marked below."))
    }

    @Test("the form reads back the design it shows; empty fields are left out, no file keeps an image, a ticked box removes it")
    func roundTrip() throws {
        let design = PassDesign(
            backgroundColor: "rgb(16, 32, 48)", foregroundColor: "rgb(250, 250, 250)", logoText: "Harbour", images: ["strip": Self.strip, "footer": Self.strip],
            details: WalletEventDetails(
                venueName: "Harbour Hall", venueRoom: "Main Stage", venueLocation: .init(latitude: 38.7071, longitude: -9.1359),
                kind: .livePerformance(performerNames: ["The Quiet Ones", "Ana"]), guide: .init(bagPolicyURL: "https://example.com/bags"),
                featuredActions: [.init(type: .listenToMusic, url: "https://example.com/listen")], usePoster: true, eventLogoText: "Jazz"
            )
        )
        let values = DesignForm.values(of: design)
        #expect(values["backgroundColor"] == "#102030")
        #expect(values["details.kind.performerNames"] == "The Quiet Ones\nAna")
        // As a browser sends it: every text field (empty ones too), the ticked boxes, empty file parts.
        var fields = values.filter { !$0.value.isEmpty }.map { FormFields.Field(name: $0.key, value: $0.value) }
        fields += ["labelColor", "details.admissionLevel"].map { FormFields.Field(name: $0, value: "") }
        fields.append(FormFields.Field(name: "images.logo", value: "", fileName: ""))
        let read = DesignForm.read(FormFields(fields), over: design)
        #expect(read.issues.isEmpty, "\(read.issues)")
        #expect(read.files.isEmpty)
        #expect(read.design.normalized == design.normalized, "the same design comes back")

        var removing = fields
        removing.append(FormFields.Field(name: "remove.strip", value: "true"))
        removing.append(FormFields.Field(name: "images.logo", value: "", fileName: "logo.png", bytes: [0x89, 0x50]))
        let removed = DesignForm.read(FormFields(removing), over: design)
        #expect(removed.design.images == ["footer": Self.strip], "the strip is removed, the footer the form does not show is kept")
        #expect(removed.files.map(\.kind) == [.logo] && removed.files.first?.bytes == [0x89, 0x50])

        let unreadable = DesignForm.read(FormFields([
            .init(name: "details.venueLocation.latitude", value: "north"), .init(name: "details.featuredActions.1.url", value: "https://example.com"),
            .init(name: "details.nfc.message", value: "hello"),
        ]), over: PassDesign())
        #expect(Set(unreadable.issues.map(\.field)) == [
            "details.venueLocation.latitude", "details.venueLocation.longitude", "details.featuredActions.1.type", "details.nfc.encryptionPublicKey",
        ])
        #expect(DesignForm.formField(.init("details.kind.performerNames[1]", "must not be empty")) == .init("details.kind.performerNames", "line 2: must not be empty"))
        #expect(DesignForm.formField(.init("details.featuredActions[0].url", "must use https")) == .init("details.featuredActions.0.url", "must use https"))
        #expect(DesignForm.formField(.init("image", "The file is empty"), upload: .logo) == .init("images.logo", "The file is empty"))
    }

    @Test("hostile text in the design and the event stays text", arguments: HostilePageTests.values)
    func hostile(value: String) throws {
        let event = DashboardPagesTests.event(name: value, venue: value, id: value)
        var design = PassDesign(logoText: value)
        design.details.eventLogoText = value
        design.details.venueName = value
        let preview = DesignPreview(
            definition: try PassDefinition.decode(Array(Self.passJSON.utf8)), template: try PassDefinition.decode(Array(Self.templateJSON.utf8)),
            strings: ["EVENT": value, "No re-entry": value], event: event, design: design, images: [.logo: value, .strip: "javascript:alert(1)"],
            templateImages: [.logo: "data:image/png;base64,<script>"]
        )
        var state = FormState(values: DesignForm.values(of: design).mapValues { $0.isEmpty ? value : $0 })
        state.issues = [.init("logoText", value), .init(value, value)]
        let visitor = DashboardSessions.Visitor(sessionIDHash: [], tokenName: value, role: .admin, csrfToken: "t")
        let markup = DesignPage(event: event, visitor: visitor, form: state, storedImages: [.strip: value], preview: preview, job: value, notice: .init(text: value))
            .render().markup
        HostilePageTests.expectEscaped(markup, "design page with \(value)")
        #expect(!markup.contains(#"src="javascript"#) && !markup.contains("base64,<script>"), "no image source but http(s), relative or a PNG inline")
    }
}

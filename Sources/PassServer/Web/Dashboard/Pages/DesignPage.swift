import Foundation
import PassBundle
import PassImages
import Storage

/// The design page (`GET /admin/events/{id}/design`) as a function of what it shows: the preview
/// of a sample ticket at phone width (front, poster, back) beside the form of the event's look
/// (colours, logo text, images) and its Wallet details. Admins save it (all or nothing); viewers
/// see the same form, disabled. It reads nothing: the controller gathers the values.
struct DesignPage {
    var event: Event
    var visitor: DashboardSessions.Visitor
    /// The form's values (the stored design's, or what was submitted and refused) and its issues.
    var form: FormState
    /// The stored design's image id of each kind, for the images the form lists.
    var storedImages: [PassImageKind: String] = [:]
    /// The bytes of each stored image (its three files), by image id.
    var imageBytes: [String: Int] = [:]
    /// nil when the pass cannot be built as stored (the page says so instead of a preview).
    var preview: DesignPreview?
    /// The re-push job the last save started, for a link to its progress.
    var job: String?
    var notice: DashboardLayout.Notice?

    func render() -> HTML {
        let id = event.id
        let canWrite = visitor.canWrite
        var body: HTML = """
            <p class="crumbs"><a href="/admin/">Events</a> › <a href="/admin/events/\(id)">\(event.name)</a></p>
            <div class="page-head"><div><h1>Pass design</h1>
            <p class="subtitle">\(event.name) · template <code>\(event.template)</code></p></div></div>
            """
        if let job {
            let progress = DashboardLayout.link("/admin/events/\(id)", [("job", job)])
            body += #"<p class="notice ok" id="design-job">Every issued pass is being updated: <a href="\#(url: progress)">follow the phones on the event page</a>.</p>"#
        }
        if !canWrite {
            body += #"<p class="muted" id="design-read-only">You can look at the design; changing it needs an admin token.</p>"#
        }
        let previewHTML: HTML = preview?.render() ?? #"<p class="notice error" id="design-unbuildable">The pass cannot be built as it is stored, so there is no preview.</p>"#
        let formStart: HTML = canWrite
            ? #"<form method="post" action="/admin/events/\#(id)/design" enctype="multipart/form-data" class="design-form" id="design-form">\#(DashboardLayout.csrf(visitor))"#
            : #"<form class="design-form" id="design-form"><fieldset disabled class="plain">"#
        let formEnd: HTML = canWrite
            ? #"<p class="design-save"><button type="submit">Save design</button> <span class="muted">Saving updates every issued pass and pushes the phones holding them.</span></p></form>"#
            : "</fieldset></form>"
        body += """
            <div class="design-grid">
            <section class="design-preview" aria-labelledby="preview-heading"><h2 id="preview-heading">Preview</h2>
            <p class="muted">A sample ticket as Wallet shows it; it follows the form as you change it.</p>
            \(previewHTML)</section>
            <div class="design-fields">\(formStart)
            \(look)
            \(imageFields)
            \(venueFields)
            \(kindFields)
            \(guideFields)
            \(actionFields)
            \(posterFields)
            \(formEnd)</div>
            </div>
            """
        return DashboardLayout.page(
            title: "Design · \(event.name)", visitor: visitor, notice: form.notice(shown: DesignForm.shownFields) ?? notice, body: body,
            scripts: ["design.js"]
        )
    }

    // MARK: Inputs

    /// A labelled text input with its hint and issues, in one box (so two sit side by side in a row).
    private func text(_ name: String, _ label: String, maxLength: Int = 200, hint: String? = nil, type: String = "text") -> HTML {
        let input = DashboardLayout.field(
            name, label: label, value: form.value(name), type: type, attributes: "maxlength=\(maxLength)", hint: hint, issues: form.issues(name)
        )
        return #"<div class="field">\#(input)</div>"#
    }

    private func textarea(_ name: String, _ label: String, hint: String) -> HTML {
        let id = DashboardLayout.fieldID(name)
        let issues = form.issues(name)
        let error: HTML? = issues.isEmpty ? nil : #"<p class="field-error" id="\#(id)-error">\#(issues.joined(separator: "; "))</p>"#
        let described: HTML = issues.isEmpty ? #" aria-describedby="\#(id)-hint""# : #" aria-describedby="\#(id)-hint \#(id)-error" aria-invalid="true""#
        return """
            <label for="\(id)">\(label)</label>
            <textarea id="\(id)" name="\(name)" rows="3"\(described)>\(form.value(name) ?? "")</textarea><small class="muted" id="\(id)-hint">\(hint)</small>\(error)
            """
    }

    private func checkbox(_ name: String, _ label: String) -> HTML {
        let id = DashboardLayout.fieldID(name)
        let issues = form.issues(name)
        let error: HTML? = issues.isEmpty ? nil : #"<p class="field-error" id="\#(id)-error">\#(issues.joined(separator: "; "))</p>"#
        let invalid: HTML? = issues.isEmpty ? nil : #" aria-invalid="true" aria-describedby="\#(id)-error""#
        return """
            <p class="check"><input type="checkbox" id="\(id)" name="\(name)" value="true"\(form.value(name) == "true" ? " checked" as HTML : "")\(invalid)> \
            <label for="\(id)" class="inline">\(label)</label></p>\(error)
            """
    }

    private func color(_ name: String, _ label: String, template: String?) -> HTML {
        let id = DashboardLayout.fieldID(name)
        let current = form.value(name).flatMap { $0.isEmpty ? nil : $0 } ?? template ?? ""
        return """
            <div class="color-field">\(DashboardLayout.field(
                name, label: label, value: form.value(name), attributes: "maxlength=32 placeholder=\"\(template.map(DesignForm.hex) ?? "#rrggbb")\" data-color=\"\(name)\"",
                hint: "#rrggbb or rgb(r, g, b); empty: the template's\(template.map { " (\(DesignForm.hex($0)))" } ?? "").", issues: form.issues(name)
            ))<input type="color" class="color-picker" id="\(id)-picker" data-color-for="\(id)" value="\(DesignForm.hex(current).count == 7 ? DesignForm.hex(current) : "#000000")" \
            aria-label="Pick the \(label.lowercased())"></div>
            """
    }

    // MARK: Sections

    private var look: HTML {
        """
        <fieldset><legend>Look</legend>
        \(color("backgroundColor", "Background colour", template: preview?.templateColors.background))
        \(color("foregroundColor", "Foreground colour", template: preview?.templateColors.foreground))
        \(color("labelColor", "Label colour", template: preview?.templateColors.label))
        \(text("logoText", "Logo text", maxLength: PassDesign.maxLogoText, hint: "Beside the logo on the classic ticket; empty: the template's\(preview.map { " (\($0.templateLogoText))" } ?? "")."))
        </fieldset>
        """
    }

    private func imageField(_ kind: PassImageKind) -> HTML {
        let name = "images." + kind.rawValue
        let id = DashboardLayout.fieldID(name)
        let issues = form.issues(name)
        let current: HTML
        if let stored = storedImages[kind] {
            current = """
                <span class="image-current"><img src="/admin/images/\(stored)?scale=1" alt="" class="image-thumb" id="\(id)-current"> This event's image\(
                    imageBytes[stored].map { ", \(Self.kilobytes($0)) in every pass" } ?? "").</span>
                \(checkbox("remove." + kind.rawValue, "Remove it (\(preview?.templateImages[kind] == nil ? "no \(Self.title(kind).lowercased())" : "use the template's"))"))
                """
        } else if let template = preview?.templateImages[kind] {
            current = #"<span class="image-current"><img src="\#(imageURL: template)" alt="" class="image-thumb"> The template's image.</span>"#
        } else {
            current = #"<span class="image-current muted">None.</span>"#
        }
        let error: HTML? = issues.isEmpty ? nil : #"<p class="field-error" id="\#(id)-error">\#(issues.joined(separator: "; "))</p>"#
        let described: HTML = issues.isEmpty ? #" aria-describedby="\#(id)-hint""# : #" aria-describedby="\#(id)-hint \#(id)-error" aria-invalid="true""#
        return """
            <div class="image-field"><label for="\(id)">\(Self.title(kind))</label>\(current)
            <input type="file" id="\(id)" name="\(name)" accept="image/png,image/jpeg" data-preview="\(kind.rawValue)"\(described)>\
            <small class="muted" id="\(id)-hint">\(DesignForm.requirement(kind))</small>\(error)</div>
            """
    }

    static func title(_ kind: PassImageKind) -> String {
        switch kind {
        case .icon: "Icon"
        case .logo: "Logo"
        case .strip: "Strip"
        case .background: "Background"
        case .thumbnail: "Thumbnail"
        case .footer: "Footer"
        case .artwork: "Poster artwork"
        case .primaryLogo: "Poster logo"
        case .secondaryLogo: "Poster second logo"
        }
    }

    private var imageFields: HTML {
        """
        <fieldset><legend>Images</legend>
        <p class="muted">Upload each image once, at its largest; the server makes the @1x, @2x and @3x files. \
        Wallet ignores the background and the thumbnail when the pass has a strip. No file keeps the current image; \
        one save takes at most \(DashboardController.designBodyLimit >> 20) MiB of files.</p>
        \(HTML(joining: DesignForm.classicImages.map(imageField)))
        \(checkbox("imagesFullColor", "Keep new uploads in full colour"))
        <small class="muted" id="images-colors-hint">Uploads are stored as 256-colour PNGs unless this is ticked: the same on a \
        phone's screen, and for a photograph about a fifth of the bytes. Every phone downloads all of a pass's images on every \
        update, often on a venue's busy network.</small>
        <p id="images-weight">\(weight)</p>
        </fieldset>
        """
    }

    /// What the stored images add to each pass, in a sentence.
    private var weight: String {
        let total = storedImages.values.reduce(0) { $0 + (imageBytes[$1] ?? 0) }
        return total == 0 ? "This design adds no images of its own to the pass." : "This design's images add \(Self.kilobytes(total)) to every pass."
    }

    /// Bytes as kilobytes (or megabytes from 1 MB), as an organizer reads them.
    static func kilobytes(_ bytes: Int) -> String {
        bytes >= 1_000_000 ? String(format: "%.1f MB", Double(bytes) / 1_000_000) : "\(max(1, (bytes + 500) / 1000)) KB"
    }

    private var venueFields: HTML {
        """
        <fieldset><legend>Venue</legend>
        \(text("details.venueName", "Venue name", hint: "Empty: the event's venue (\(event.venue))."))
        \(text("details.venueRegionName", "Region", hint: "The city or area of the venue."))
        \(text("details.venueRoom", "Room", maxLength: 100, hint: "The hall, stage or room inside the venue."))
        <div class="two">\(text("details.venueLocation.latitude", "Latitude", maxLength: 32, hint: "Degrees, −90 to 90."))\
        \(text("details.venueLocation.longitude", "Longitude", maxLength: 32, hint: "Degrees, −180 to 180."))</div>
        \(textarea("details.entranceDescription", "Entrance", hint: "How to get in, in a sentence or two."))
        \(text("details.admissionLevel", "Admission level", maxLength: 100, hint: "The kind of admission every ticket grants (Floor, VIP)."))
        </fieldset>
        """
    }

    private var kindFields: HTML {
        let names: [(String, String)] = [
            ("generic", "Generic"), ("livePerformance", "Live performance"), ("movie", "Movie"), ("sports", "Sports"), ("conference", "Conference"),
            ("convention", "Convention"), ("workshop", "Workshop"), ("socialGathering", "Social gathering"),
        ]
        let labels = [
            "homeTeamName": "Home team", "homeTeamAbbreviation": "Home team abbreviation", "homeTeamLocation": "Home team location",
            "awayTeamName": "Away team", "awayTeamAbbreviation": "Away team abbreviation", "awayTeamLocation": "Away team location",
            "leagueName": "League", "leagueAbbreviation": "League abbreviation", "sportName": "Sport",
        ]
        let sports = HTML(joining: DesignForm.sportsKeys.map { key in
            text("details.kind." + key, labels[key] ?? key, maxLength: key.hasSuffix("Abbreviation") ? 10 : 100)
        })
        return """
            <fieldset><legend>Event type</legend>
            \(DashboardLayout.select("details.kind.type", label: "Type", options: names, selected: form.value("details.kind.type") ?? "generic", issues: form.issues("details.kind.type")))
            <div data-for-kind="livePerformance">\(textarea("details.kind.performerNames", "Performers", hint: "One name a line; a poster needs at least one."))</div>
            <div data-for-kind="sports" class="two">\(sports)</div>
            </fieldset>
            """
    }

    private var guideFields: HTML {
        let labels = [
            "accessibilityURL": "Accessibility", "addOnURL": "Add-ons", "bagPolicyURL": "Bag policy", "contactVenueEmail": "Venue email",
            "contactVenuePhoneNumber": "Venue phone", "contactVenueWebsite": "Venue website", "directionsInformationURL": "Directions",
            "merchandiseURL": "Merchandise", "orderFoodURL": "Order food", "parkingInformationURL": "Parking information",
            "purchaseParkingURL": "Buy parking", "sellURL": "Sell the ticket", "transferURL": "Transfer the ticket", "transitInformationURL": "Public transport",
        ]
        let open = DesignForm.guideKeys.contains { !(form.value("details.guide." + $0) ?? "").isEmpty || !form.issues("details.guide." + $0).isEmpty }
        let fields = HTML(joining: DesignForm.guideKeys.map { key in
            let type = key == "contactVenueEmail" ? "email" : key == "contactVenuePhoneNumber" ? "tel" : "url"
            return text("details.guide." + key, labels[key] ?? key, maxLength: WalletEventDetails.maxURLLength, type: type)
        })
        return """
            <details class="group"\(open ? " open" as HTML : "")><summary>Event guide links</summary>
            <p class="muted">https links a poster shows in its event guide (Wallet shows the guide once two or more are set).</p>
            <div class="two">\(fields)</div></details>
            """
    }

    private var actionFields: HTML {
        let options = [("", "—")] + WalletEventDetails.FeaturedActionType.eventTicketTypes.map { type -> (String, String) in
            switch type {
            case .viewSchedule: (type.rawValue, "View the schedule")
            case .watchTrailer: (type.rawValue, "Watch the trailer")
            case .listenToMusic: (type.rawValue, "Listen to the music")
            case .viewOffersRewards: (type.rawValue, "View offers and rewards")
            default: (type.rawValue, type.rawValue)
            }
        }
        let rows = HTML(joining: DesignForm.actionRows.map { row in
            let type = "details.featuredActions.\(row).type"
            return """
                <div class="two"><div class="field">\(DashboardLayout.select(type, label: "Action \(row + 1)", options: options, selected: form.value(type) ?? "", issues: form.issues(type)))</div>\
                \(text("details.featuredActions.\(row).url", "Action \(row + 1) link", maxLength: WalletEventDetails.maxURLLength, type: "url"))</div>
                """ as HTML
        })
        return """
            <fieldset><legend>Featured actions</legend>
            <p class="muted">Cards below the pass (iOS 27), each opening an https link.</p>
            \(rows)
            </fieldset>
            """
    }

    private var posterFields: HTML {
        """
        <fieldset><legend>Poster</legend>
        <p class="muted">The poster layout needs the venue name, region and room, performers or both team abbreviations, artwork and NFC entry; \
        saving says what is missing. Phones without posters show the classic ticket.</p>
        \(checkbox("details.usePoster", "Show the pass as a poster where Wallet can"))
        \(text("details.eventLogoText", "Poster logo text", maxLength: 100, hint: "Beside the logo on the poster (posters ignore the logo text)."))
        \(HTML(joining: DesignForm.posterImages.map(imageField)))
        \(text("details.nfc.message", "NFC message", maxLength: WalletEventDetails.maxNFCMessageBytes, hint: "What the phone sends to the reader; empty: each pass's own barcode message."))
        \(text("details.nfc.encryptionPublicKey", "NFC reader key", maxLength: 200, hint: "Base64 of the reader's P-256 public key (SubjectPublicKeyInfo); the pass type certificate must be enabled for NFC."))
        \(checkbox("details.nfc.requiresAuthentication", "Ask for Face ID or the passcode at each tap"))
        </fieldset>
        """
    }
}

import Foundation
import PassBundle
import Storage

/// What the design page's preview draws: a sample ticket of the event as the pass is built now
/// (the design over the template), and the template's own look for what a cleared field or a
/// removed image falls back to. The page renders it; design.js keeps it in step with the form.
struct DesignPreview: Sendable {
    struct Field: Sendable, Equatable {
        var label: String
        var value: String
    }

    /// Colours as pass.json writes them (`rgb(r, g, b)`).
    struct Colors: Sendable, Equatable {
        var background: String
        var foreground: String
        var label: String

        /// Wallet's colours for a pass that sets none.
        static let wallet = Colors(background: "rgb(255, 255, 255)", foreground: "rgb(0, 0, 0)", label: "rgb(0, 0, 0)")

        /// The colours of `definition`, Wallet's where it sets none (the label falls back to the foreground).
        init(_ definition: PassDefinition?) {
            let foreground = definition?.foregroundColor ?? Self.wallet.foreground
            self.init(
                background: definition?.backgroundColor ?? Self.wallet.background, foreground: foreground, label: definition?.labelColor ?? foreground
            )
        }

        init(background: String, foreground: String, label: String) {
            self.background = background
            self.foreground = foreground
            self.label = label
        }
    }

    var colors: Colors
    var templateColors: Colors
    var organizationName: String
    var logoText: String
    var templateLogoText: String
    /// Where each image is shown from now: the design's (`/admin/images/{id}?scale=2`) or the
    /// template's file (a `data:` URL), by kind.
    var images: [PassImageKind: String]
    /// The template's own image of each kind it has.
    var templateImages: [PassImageKind: String]
    var header: [Field] = []
    var primary: [Field] = []
    var secondary: [Field] = []
    var auxiliary: [Field] = []
    var back: [Field] = []
    /// The sample barcode's message and the text under it; nil when the template has none.
    var barcode: (message: String, altText: String?)?
    var eventName: String
    var venue: String
    var date: String
    var eventLogoText: String?
    var usePoster: Bool

    /// The preview of `definition` (the sample pass with the design) over `template` (the same
    /// sample without it).
    init(
        definition: PassDefinition, template: PassDefinition, strings: [String: String], event: Event, design: PassDesign,
        images: [PassImageKind: String], templateImages: [PassImageKind: String]
    ) {
        let text = PassFieldText(strings: strings, timeZone: event.timeZone, walletDates: event.language)
        func fields(_ list: [PassDefinition.Field]?) -> [Field] {
            (list ?? []).map { Field(label: text.label($0), value: text.value($0)) }
        }
        colors = Colors(definition)
        templateColors = Colors(template)
        organizationName = definition.organizationName
        logoText = definition.logoText ?? ""
        templateLogoText = template.logoText ?? ""
        self.images = images
        self.templateImages = templateImages
        let structure = definition.eventTicket
        header = fields(structure?.headerFields)
        primary = fields(structure?.primaryFields)
        secondary = fields(structure?.secondaryFields)
        auxiliary = fields(structure?.auxiliaryFields)
        back = fields(structure?.backFields)
        barcode = definition.barcodes?.first.map { ($0.message, $0.altText) }
        eventName = event.name
        venue = design.details.venueName ?? event.venue
        date = PassFieldText.walletDate(
            event.startsAt, dateStyle: "PKDateStyleMedium", timeStyle: "PKDateStyleShort", timeZone: event.timeZone, language: event.language
        )
        eventLogoText = design.details.eventLogoText
        usePoster = design.details.usePoster
    }

    /// A strip hides the background and the thumbnail (Wallet shows neither beside a strip).
    var hasStrip: Bool { images[.strip] != nil }

    // MARK: Rendering

    /// The front (classic), the poster (shown while the poster is asked for) and the back.
    func render() -> HTML {
        """
        <div class="preview-stack" id="design-preview" data-background="\(colors.background)" data-foreground="\(colors.foreground)" \
        data-label="\(colors.label)" data-template-background="\(templateColors.background)" data-template-foreground="\(templateColors.foreground)" \
        data-template-label="\(templateColors.label)" data-template-logo-text="\(templateLogoText)">
        <p class="preview-caption" id="preview-poster-caption"\(usePoster ? "" : " hidden" as HTML)>Poster (iOS 26 and later)</p>
        \(poster)
        <p class="preview-caption" id="preview-front-caption">\(usePoster ? "Classic ticket (other phones)" : "Front")</p>
        \(notification)
        \(front)
        <p class="preview-caption">Back</p>
        \(backSide)
        </div>
        """
    }

    /// An `img` of the preview for `kind`: its source now, and the sources design.js falls back to.
    private func image(_ kind: PassImageKind, _ className: String) -> HTML {
        let current = images[kind]
        let template: HTML? = templateImages[kind].map { #" data-template-src="\#(imageURL: $0)""# }
        let source: HTML? = current.map { #" src="\#(imageURL: $0)""# }
        return """
            <img class="\(className)" alt="" data-image="\(kind.rawValue)" data-current-src="\(imageURL: current ?? "")"\(template)\(source)\(current == nil ? " hidden" as HTML : "")>
            """
    }

    private func fieldList(_ fields: [Field], className: String, id: String) -> HTML {
        let items = HTML(joining: fields.map { field in
            #"<div class="pass-field"><span class="pass-label">\#(field.label.uppercased())</span><span class="pass-value">\#(field.value)</span></div>"# as HTML
        })
        return #"<div class="\#(className)" id="\#(id)">\#(items)</div>"#
    }

    private var barcodeArea: HTML {
        guard let barcode else { return "" }
        let code: HTML = (try? QRCode(barcode.message))?.svg(label: "Sample barcode") ?? ""
        return """
            <div class="pass-barcode"><div class="pass-code">\(code)</div>\
            \(barcode.altText.map { #"<span class="pass-alt">\#($0)</span>"# as HTML })</div>
            """
    }

    /// The lock screen's line: the icon and the organization.
    private var notification: HTML {
        """
        <div class="pass-notification">\(image(.icon, "pass-icon"))<span><strong>\(organizationName)</strong><br>\
        <span class="muted">\(eventName)</span></span></div>
        """
    }

    private var front: HTML {
        """
        <figure class="wallet-pass\(hasStrip ? " has-strip" : "")" id="preview-front" aria-label="Front of the pass">
        \(image(.background, "pass-background"))
        <div class="pass-head">\(image(.logo, "pass-logo"))<span class="pass-logo-text" id="preview-logo-text">\(logoText)</span>\
        \(fieldList(header, className: "pass-header-fields", id: "preview-header"))</div>
        <div class="pass-hero">\(image(.strip, "pass-strip"))\(fieldList(primary, className: "pass-primary", id: "preview-primary"))\
        \(image(.thumbnail, "pass-thumbnail"))</div>
        \(fieldList(secondary, className: "pass-row", id: "preview-secondary"))
        \(fieldList(auxiliary, className: "pass-row", id: "preview-auxiliary"))
        \(barcodeArea)
        </figure>
        """
    }

    private var poster: HTML {
        """
        <figure class="wallet-poster" id="preview-poster" aria-label="Poster of the pass"\(usePoster ? "" : " hidden" as HTML)>
        <div class="poster-canvas">\(image(.artwork, "poster-artwork"))
        <div class="poster-top">\(image(.primaryLogo, "poster-logo"))<span class="poster-logo-text" id="preview-event-logo-text">\(eventLogoText ?? "")</span></div>
        <div class="poster-info"><p class="poster-name">\(eventName)</p><p class="poster-when">\(date)</p><p class="poster-venue">\(venue)</p>\
        \(image(.secondaryLogo, "poster-secondary-logo"))</div></div>
        \(barcodeArea)
        </figure>
        """
    }

    private var backSide: HTML {
        let items = HTML(joining: back.map { field in
            #"<div><dt>\#(field.label)</dt><dd>\#(field.value)</dd></div>"# as HTML
        })
        return """
            <section class="wallet-back" id="preview-back" aria-label="Back of the pass"><p class="back-title">\(organizationName)</p>\
            <dl>\(items)</dl></section>
            """
    }
}

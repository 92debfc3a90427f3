import PassIdentifiers
import Foundation
import Logging
package import PassBundle
import Storage

/// Turns stored passes into signed `.pkpass` bundles: fills the event-ticket template from the
/// pass and its event, signs with the configured identity, and caches by (pass, revision).
///
/// Signing blocks (OpenSSL); callers are HTTP engine threads or the job runner's thread.
package final class PassService: Sendable {
    package let signer: PassSigner
    /// The folder templates and the uploaded ones, by name.
    let templates: TemplateLibrary
    package let vault: TokenVault
    /// `webServiceURL` of every pass: PUBLIC_URL, so phones call back where we serve.
    let webServiceURL: String
    let organizationName: String
    let options: ValidationOptions
    /// Bounds concurrent signing and measures it (read by the push dispatcher's pacing).
    let meter: SigningMeter
    /// The signing certificate's pass type, checked once here; nil when it is not a valid pass
    /// type identifier (no ticket can then be issued, found or checked in).
    let passType: PassTypeIdentifier?
    private let cache: BundleCache<SignedBundle>
    /// Reads the image sets a design names, by id (from the store).
    let loadImages: @Sendable ([String]) throws -> [String: PassImageRecord]
    let designs = DesignedTemplates()
    /// The NFC readers' public key when the pass type certificate is enabled for NFC
    /// (`PASS_NFC_READER_KEY`); nil: no pass carries `nfc`.
    let nfcReaderKey: String?

    init(signer: PassSigner, templates: TemplateLibrary, vault: TokenVault, publicURL: URL, organizationName: String,
         allowHTTP: Bool, cacheBytes: Int = 64 << 20, meter: SigningMeter = SigningMeter(), nfcReaderKey: String? = nil,
         loadImages: @escaping @Sendable ([String]) throws -> [String: PassImageRecord] = { _ in [:] }) {
        self.loadImages = loadImages
        self.nfcReaderKey = nfcReaderKey
        self.signer = signer
        self.templates = templates
        self.vault = vault
        self.webServiceURL = publicURL.absoluteString
        self.organizationName = organizationName
        self.options = ValidationOptions(allowHTTPWebService: allowHTTP)
        self.cache = BundleCache(maxBytes: cacheBytes)
        self.meter = meter
        passType = PassTypeIdentifier(signer.passTypeIdentifier)
    }

    /// `PUBLIC_URL/download/{token}` for the pass's current link (the attendee's page).
    func downloadURL(for pass: StoredPass) throws -> String {
        let token = try vault.downloadToken(passType: pass.passTypeIdentifier, serial: pass.serialNumber, nonce: pass.downloadNonce)
        return webServiceURL + "/download/" + token
    }

    /// `PUBLIC_URL/orders/{token}`: the buyer's page of an order.
    func orderURL(for order: StoredOrder) throws -> String {
        webServiceURL + "/orders/" + (try vault.orderToken(orderID: order.id))
    }

    /// The signed bundle of `pass` at its current revision. `event` is looked up by the caller only
    /// on a cache miss (`loadEvent`). Signing happens on demand, once however many threads ask
    /// (`BundleCache`), under one of the meter's permits.
    func bundle(for pass: StoredPass, loadEvent: () throws -> Event?) throws -> SignedBundle {
        meter.requested()
        let key = BundleKey(passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, revision: pass.revision)
        return try cache.bundle(for: key) {
            let event = try loadEvent()
            let (template, design) = try designedTemplate(for: event)
            let data = try ticketData(for: pass, event: event)
            return try meter.sign {
                try PassBundle.buildSigned(template: template, data: data, design: design, signer: signer, signingTime: Date(), options: options)
            }
        }
    }

    /// The signed bundle of the pass `head` names at its revision, if it is cached (then counted as
    /// asked for, like `bundle(for:loadEvent:)`); nil if the pass must be read whole and signed.
    func cachedBundle(for head: PassHead) -> SignedBundle? {
        let key = BundleKey(passTypeIdentifier: head.passTypeIdentifier, serialNumber: head.serialNumber, revision: head.revision)
        guard let bundle = cache.cached(key) else { return nil }
        meter.requested()
        return bundle
    }

    var cacheStatistics: (hits: Int, misses: Int, entries: Int) { cache.statistics }

    /// What an erased ticket's pass and page show for the attendee's name (erasing leaves it empty).
    static let erasedName = "Attendee data erased"

    /// The name a pass shows: the attendee's, or `erasedName` once it was erased.
    static func shownName(_ pass: StoredPass) -> String {
        pass.attendeeName.isEmpty ? erasedName : pass.attendeeName
    }

    /// The template values of a pass.
    func ticketData(for pass: StoredPass, event: Event?) throws -> TicketData {
        guard let event else { throw PassServiceError("pass \(pass.serialNumber) has no event") }
        return try ticketData(
            passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, attendeeName: Self.shownName(pass), seat: pass.seat,
            extra: pass.extra, cancelled: pass.status == .cancelled, cancellationReason: pass.cancellationReason, checkedInAt: pass.checkedInAt, event: event
        )
    }

    /// The template values of a pass with these holder fields, for `event`.
    func ticketData(
        passTypeIdentifier passType: PassTypeIdentifier, serialNumber serial: SerialNumber, attendeeName: String, seat: String?,
        extra: [String: ExtraValue] = [:], cancelled: Bool, cancellationReason: String?, checkedInAt: Date? = nil, event: Event
    ) throws -> TicketData {
        let barcode = try vault.barcode(passType: passType, serial: serial)
        return TicketData(
            serialNumber: serial.rawValue,
            authenticationToken: try vault.authenticationToken(passType: passType, serial: serial).rawValue,
            webServiceURL: webServiceURL,
            organizationName: organizationName,
            description: "Ticket for \(event.name)",
            eventName: event.name,
            venue: event.venue,
            startsAt: event.startsAt,
            endsAt: event.endsAt,
            timeZone: event.timeZone,
            attendeeName: attendeeName,
            seat: seat,
            cancelled: cancelled,
            cancellationReason: cancellationReason,
            checkedInAt: checkedInAt,
            // The ticket's values of the template's extra fields; PassBundle fills in the defaults
            // of those it has none for.
            extra: extra.mapValues(\.text).merging(["voidReason": cancellationReason ?? ""]) { _, fixed in fixed },
            // The signed code scanned at the door, and its check code as the text under it.
            barcodeMessage: barcode.message,
            barcodeAltText: barcode.checkCode,
            // The event's announcement, on the tickets still valid (an announcement job bumps those).
            announcement: cancelled ? nil : event.announcement.map { TicketData.Announcement(message: $0.message, notify: $0.notify) }
        )
    }
}

/// A pass that cannot be rendered from what is stored.
struct PassServiceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

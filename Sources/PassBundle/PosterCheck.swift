import Foundation

/// Why Wallet would not show a pass as a poster event ticket, from Apple's rules.
///
/// Wallet shows the poster only when everything below holds, and otherwise falls back to the
/// classic ticket without saying why; the checker says why before anything is issued:
/// - `preferredStyleSchemes` lists `posterEventTicket`, and the `eventTicket` dictionary keeps its
///   classic fields (older phones show those; without them they show an empty pass);
/// - `semantics` holds `eventName`, `venueName`, `venueRegionName` and `venueRoom` for every event
///   type, plus `awayTeamAbbreviation` and `homeTeamAbbreviation` for `PKEventTypeSports` and a
///   non-empty `performerNames` for `PKEventTypeLivePerformance`;
/// - the bundle has an `artwork` image (a `background` image also serves);
/// - the pass has `nfc` with `message`, `encryptionPublicKey` and `requiresAuthentication`:
///   posters are meant for NFC entry.
public enum PosterCheck {
    /// One reason the poster would not be shown.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// `preferredStyleSchemes` does not ask for the poster.
        case posterNotPreferred
        /// The `eventTicket` dictionary has no primary, secondary or auxiliary field.
        case missingClassicFields
        /// A required semantic tag (`venueRoom`) is missing or empty.
        case missingSemantic(String)
        /// Neither an `artwork` nor a `background` image.
        case missingArtwork
        /// No `nfc` dictionary.
        case missingNFC
        /// The `nfc` dictionary lacks a key (`encryptionPublicKey`).
        case incompleteNFC(String)

        /// The pass.json key or image that is missing (`semantics.venueRoom`, `artwork`).
        public var tag: String {
            switch self {
            case .posterNotPreferred: "preferredStyleSchemes"
            case .missingClassicFields: "eventTicket"
            case .missingSemantic(let key): "semantics." + key
            case .missingArtwork: "artwork"
            case .missingNFC: "nfc"
            case .incompleteNFC(let key): "nfc." + key
            }
        }

        /// The `WalletEventDetails` field that supplies it (`venueRoom`, `kind.homeTeamAbbreviation`);
        /// nil where the event itself (`eventName`), the template or the images do.
        public var field: String? {
            switch self {
            case .posterNotPreferred: "usePoster"
            case .missingSemantic(let key):
                switch key {
                case "eventName": nil
                case "venueName", "venueRegionName", "venueRoom": key
                default: "kind." + key
                }
            case .missingNFC: "nfc"
            case .incompleteNFC(let key): "nfc." + key
            case .missingClassicFields, .missingArtwork: nil
            }
        }

        /// What is wrong, in a sentence that names the tag.
        public var message: String {
            switch self {
            case .posterNotPreferred: "preferredStyleSchemes must list posterEventTicket"
            case .missingClassicFields: "the eventTicket dictionary must keep its classic fields for phones without posters"
            case .missingSemantic("performerNames"): "a live performance poster needs semantics.performerNames (at least one name)"
            case .missingSemantic(let key): "a poster needs semantics.\(key)"
            case .missingArtwork: "a poster needs an artwork image (artwork.png; a background image also serves)"
            case .missingNFC: "a poster needs the NFC configuration (nfc): posters are meant for NFC entry"
            case .incompleteNFC(let key): "a poster's nfc needs \(key)"
            }
        }

        public var description: String { "\(tag): \(message)" }
    }

    /// The tags every poster needs, whatever the event type.
    public static let requiredSemantics = ["eventName", "venueName", "venueRegionName", "venueRoom"]
    /// The tags a type adds, by `eventType`.
    public static let requiredSemanticsByEventType = [
        "PKEventTypeSports": ["awayTeamAbbreviation", "homeTeamAbbreviation"],
        "PKEventTypeLivePerformance": ["performerNames"],
    ]

    /// Every reason a pass.json tree (rendered, or a template's) with these images would not be a
    /// poster, in the order of the type's comment; empty when it would be.
    public static func reasons(pass: JSONValue, images: Set<PassImageKind>) -> [Reason] {
        guard case .object(let root) = pass else { return [.posterNotPreferred] }
        var reasons: [Reason] = []
        if case .array(let schemes)? = root["preferredStyleSchemes"], schemes.contains(.string("posterEventTicket")) {} else {
            reasons.append(.posterNotPreferred)
        }
        if case .object(let style)? = root["eventTicket"],
           ["primaryFields", "secondaryFields", "auxiliaryFields"].contains(where: { key in
               if case .array(let fields)? = style[key] { !fields.isEmpty } else { false }
           }) {} else {
            reasons.append(.missingClassicFields)
        }

        var semantics: [String: JSONValue] = [:]
        if case .object(let found)? = root["semantics"] { semantics = found }
        var required = requiredSemantics
        if case .string(let eventType)? = semantics["eventType"] { required += requiredSemanticsByEventType[eventType] ?? [] }
        for key in required where !isPresent(semantics[key]) { reasons.append(.missingSemantic(key)) }

        if images.isDisjoint(with: [.artwork, .background]) { reasons.append(.missingArtwork) }

        if case .object(let nfc)? = root["nfc"] {
            for key in ["message", "encryptionPublicKey"] where !isPresent(nfc[key]) { reasons.append(.incompleteNFC(key)) }
            if case .bool? = nfc["requiresAuthentication"] {} else { reasons.append(.incompleteNFC("requiresAuthentication")) }
        } else {
            reasons.append(.missingNFC)
        }
        return reasons
    }

    /// Every reason an event's details over a template's pass.json (placeholders unresolved) and
    /// with these images would not be a poster: what refuses to save a poster an organizer asked for.
    /// The event's venue text, when the template's `venueName` is a placeholder for it, counts as given.
    public static func reasons(details: WalletEventDetails, template: JSONValue, eventName: String, images: Set<PassImageKind>) -> [Reason] {
        var pass = template
        // Dates play no part in the rules: any will do.
        details.apply(to: &pass, eventName: eventName, startsAt: .init(timeIntervalSince1970: 0), endsAt: nil, timeZone: .gmt)
        return reasons(pass: pass, images: images)
    }

    /// A non-empty string, or an array holding one.
    private static func isPresent(_ value: JSONValue?) -> Bool {
        switch value {
        case .string(let text)?: !text.allSatisfy(\.isWhitespace)
        case .array(let items)?: items.contains { isPresent($0) }
        default: false
        }
    }
}

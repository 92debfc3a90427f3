/// Where an imported template's field takes its value from: one of the things `TicketData`
/// carries, or the designer's own value, kept as it is.
///
/// The text form (`rawValue`) is what a form or an API sends: `attendeeName`, `seat`, `eventName`,
/// `venue`, `startsAt`, `endsAt`, `serialNumber`, `status`, `extra.<name>` and `constant`.
public enum FieldSource: Sendable, Hashable, CustomStringConvertible {
    /// The ticket holder's name.
    case attendeeName
    /// The seat label, or the `GENERAL_ADMISSION` text for a ticket without a seat.
    case seat
    /// The event's name.
    case eventName
    /// The venue.
    case venue
    /// When the event starts, with the offset of the event's time zone.
    case startsAt
    /// When the event ends; the field disappears for an event without an end.
    case endsAt
    /// The ticket's serial number.
    case serialNumber
    /// The ticket's status (valid, checked in, cancelled) as a `pass.strings` key.
    case status
    /// An extra per-ticket field of that name (`TemplateField`), declared by the imported template.
    case extra(String)
    /// The value the designer gave, the same on every pass.
    case constant

    /// Every source except `extra`, in the order a form lists them.
    public static let ticketSources: [FieldSource] = [.attendeeName, .seat, .eventName, .venue, .startsAt, .endsAt, .serialNumber, .status, .constant]

    /// The prefix of an extra field's text form.
    static let extraPrefix = "extra."

    /// Parses the text form; nil for anything else.
    public init?(rawValue: String) {
        if rawValue.hasPrefix(Self.extraPrefix) {
            self = .extra(String(rawValue.dropFirst(Self.extraPrefix.count)))
            return
        }
        guard let source = Self.ticketSources.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = source
    }

    /// The text form.
    public var rawValue: String {
        switch self {
        case .attendeeName: "attendeeName"
        case .seat: "seat"
        case .eventName: "eventName"
        case .venue: "venue"
        case .startsAt: "startsAt"
        case .endsAt: "endsAt"
        case .serialNumber: "serialNumber"
        case .status: "status"
        case .extra(let name): Self.extraPrefix + name
        case .constant: "constant"
        }
    }

    public var description: String { rawValue }

    /// The placeholder that fills the field (see `TicketData.templateValues`); nil for `constant`.
    var placeholder: String? {
        switch self {
        case .attendeeName: "{{attendeeName}}"
        case .seat: "{{seatDisplay}}"
        case .eventName: "{{eventName}}"
        case .venue: "{{venue}}"
        case .startsAt: "{{startsAt}}"
        case .endsAt: "{{endsAt}}"
        case .serialNumber: "{{serialNumber}}"
        case .status: "{{status}}"
        case .extra(let name): "{{extra.\(name)}}"
        case .constant: nil
        }
    }

    /// Whether the value is an ISO 8601 date that Wallet formats.
    var isDate: Bool { self == .startsAt || self == .endsAt }

    /// The source a field's key and label suggest; `constant` when they suggest none.
    ///
    /// Both are split into lowercase words (`attendeeName`, `ATTENDEE_NAME` and "Attendee name"
    /// all give `attendee`, `name`) and read in an order that settles overlaps: "event date" is a
    /// start, "venue name" a venue, "event name" the event, and "name" alone the attendee.
    public static func guess(key: String, label: String?) -> FieldSource {
        let words = Set(Self.words(key) + Self.words(label ?? ""))
        func any(_ candidates: String...) -> Bool { candidates.contains { words.contains($0) } }
        if any("seat", "seats", "seating") { return .seat }
        if any("status", "state") { return .status }
        if any("serial") || (any("ticket") && any("number", "no", "id")) { return .serialNumber }
        if any("end", "ends", "until", "finish", "finishes") { return .endsAt }
        if any("start", "starts", "date", "time", "when", "begins") { return .startsAt }
        if any("venue", "location", "place", "where") { return .venue }
        if any("event", "show", "concert", "title") { return .eventName }
        if any("attendee", "holder", "guest", "name", "visitor") { return .attendeeName }
        return .constant
    }

    /// Lowercase words of a key or label: split at anything but letters and digits, and where
    /// a lowercase letter or digit is followed by an uppercase one.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for character in text {
            guard character.isLetter || character.isNumber else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousWasLower = false
                continue
            }
            if character.isUppercase && previousWasLower && !current.isEmpty {
                words.append(current)
                current = ""
            }
            current += character.lowercased()
            previousWasLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}

extension WalletEventDetails {
    /// What kind of event it is: Apple's `semantics.eventType`, with the tags a type adds.
    ///
    /// Its `Codable` form is one flat object, `{"type": "sports", "homeTeamAbbreviation": "SFG", …}`
    /// or `{"type": "livePerformance", "performerNames": ["…"]}`; `type` is Apple's value without
    /// the `PKEventType` prefix, in lower camel case.
    public enum EventKind: Sendable, Hashable, Codable {
        case generic
        /// A concert or show; a poster needs at least one performer name.
        case livePerformance(performerNames: [String])
        /// A game; a poster needs both team abbreviations.
        case sports(Sports)
        case movie
        case conference
        case convention
        case workshop
        case socialGathering

        /// The `type` of the `Codable` form (`livePerformance`).
        public var typeName: String {
            switch self {
            case .generic: "generic"
            case .livePerformance: "livePerformance"
            case .sports: "sports"
            case .movie: "movie"
            case .conference: "conference"
            case .convention: "convention"
            case .workshop: "workshop"
            case .socialGathering: "socialGathering"
            }
        }

        /// Apple's `semantics.eventType` value (`PKEventTypeLivePerformance`).
        public var eventType: String {
            let name = typeName
            return "PKEventType" + name.prefix(1).uppercased() + name.dropFirst()
        }

        /// Every `type` name, in Apple's order.
        public static let typeNames = ["generic", "livePerformance", "movie", "sports", "conference", "convention", "workshop", "socialGathering"]

        /// The kind of a type name without its tags (sports without teams, no performers); nil for an unknown name.
        public init?(typeName: String) {
            switch typeName {
            case "generic": self = .generic
            case "livePerformance": self = .livePerformance(performerNames: [])
            case "sports": self = .sports(Sports())
            case "movie": self = .movie
            case "conference": self = .conference
            case "convention": self = .convention
            case "workshop": self = .workshop
            case "socialGathering": self = .socialGathering
            default: return nil
            }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let name = try container.decode(String.self, forKey: .type)
            guard let kind = EventKind(typeName: name) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .type, in: container,
                    debugDescription: "\"\(name)\" is not one of \(Self.typeNames.joined(separator: ", "))"
                )
            }
            switch kind {
            case .livePerformance: self = .livePerformance(performerNames: try container.decodeIfPresent([String].self, forKey: .performerNames) ?? [])
            case .sports: self = .sports(try Sports(from: decoder))
            default: self = kind
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(typeName, forKey: .type)
            switch self {
            case .livePerformance(let performerNames): try container.encode(performerNames, forKey: .performerNames)
            // The teams' keys sit beside `type` in the same object.
            case .sports(let sports): try sports.encode(to: encoder)
            default: break
            }
        }

        private enum CodingKeys: String, CodingKey {
            case type, performerNames
        }
    }
}

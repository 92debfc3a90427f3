/// What one event tells Wallet beyond the classic ticket fields: the venue and event semantics,
/// the event guide's links, featured actions, NFC entry and the poster opt-in.
///
/// Property names are Apple's pass.json and semantic tag names wherever one exists
/// (`venueRegionName`, `bagPolicyURL`), so the admin API's fields, this type's `Codable` form
/// and pass.json read alike. Every value is optional and written only when set: an event without
/// details renders exactly as its template says. `validate()` checks the values on their own;
/// `PosterCheck` checks what a poster needs on top; `apply(to:eventName:startsAt:endsAt:timeZone:)`
/// writes them into a rendered pass.json.
public struct WalletEventDetails: Sendable, Hashable, Codable {
    /// `semantics.venueName`; nil keeps the template's (the event's venue text by default).
    public var venueName: String?
    /// `semantics.venueRegionName`: the city or area of the venue (a poster needs it).
    public var venueRegionName: String?
    /// `semantics.venueRoom`: the hall, stage or room inside the venue (a poster needs it).
    public var venueRoom: String?
    /// `semantics.venueLocation`, and the pass's `locations`: where the pass comes up on the lock screen.
    public var venueLocation: Location?
    /// `semantics.entranceDescription`: how to get in, in a sentence or two.
    public var entranceDescription: String?
    /// `semantics.admissionLevel`: the kind of admission every ticket of the event grants (`Floor`, `VIP`).
    public var admissionLevel: String?
    /// `semantics.eventType` and the type's own tags (performers, teams).
    public var kind: EventKind
    /// The event guide's links: top-level pass.json keys.
    public var guide: EventGuide
    /// iOS 27's featured actions (`featuredActions`), at most two.
    public var featuredActions: [FeaturedAction]
    /// `nfc`: NFC entry, for pass type certificates that Apple enabled for NFC.
    public var nfc: NFC?
    /// Asks for the poster layout (`preferredStyleSchemes` `["posterEventTicket", "eventTicket"]`);
    /// the classic fields stay for phones without it.
    public var usePoster: Bool
    /// `eventLogoText`: the text beside the logo on a poster (posters ignore `logoText`).
    public var eventLogoText: String?

    public init(
        venueName: String? = nil,
        venueRegionName: String? = nil,
        venueRoom: String? = nil,
        venueLocation: Location? = nil,
        entranceDescription: String? = nil,
        admissionLevel: String? = nil,
        kind: EventKind = .generic,
        guide: EventGuide = EventGuide(),
        featuredActions: [FeaturedAction] = [],
        nfc: NFC? = nil,
        usePoster: Bool = false,
        eventLogoText: String? = nil
    ) {
        self.venueName = venueName
        self.venueRegionName = venueRegionName
        self.venueRoom = venueRoom
        self.venueLocation = venueLocation
        self.entranceDescription = entranceDescription
        self.admissionLevel = admissionLevel
        self.kind = kind
        self.guide = guide
        self.featuredActions = featuredActions
        self.nfc = nfc
        self.usePoster = usePoster
        self.eventLogoText = eventLogoText
    }

    /// A point on Earth in degrees (WGS 84), as Wallet's `Location` dictionaries hold it.
    public struct Location: Sendable, Hashable, Codable {
        public var latitude: Double
        public var longitude: Double

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// The tags a sports event adds (`PKEventTypeSports`); a poster needs both abbreviations.
    public struct Sports: Sendable, Hashable, Codable {
        public var homeTeamName: String?
        public var homeTeamAbbreviation: String?
        public var homeTeamLocation: String?
        public var awayTeamName: String?
        public var awayTeamAbbreviation: String?
        public var awayTeamLocation: String?
        public var leagueName: String?
        public var leagueAbbreviation: String?
        public var sportName: String?

        public init(
            homeTeamName: String? = nil,
            homeTeamAbbreviation: String? = nil,
            homeTeamLocation: String? = nil,
            awayTeamName: String? = nil,
            awayTeamAbbreviation: String? = nil,
            awayTeamLocation: String? = nil,
            leagueName: String? = nil,
            leagueAbbreviation: String? = nil,
            sportName: String? = nil
        ) {
            self.homeTeamName = homeTeamName
            self.homeTeamAbbreviation = homeTeamAbbreviation
            self.homeTeamLocation = homeTeamLocation
            self.awayTeamName = awayTeamName
            self.awayTeamAbbreviation = awayTeamAbbreviation
            self.awayTeamLocation = awayTeamLocation
            self.leagueName = leagueName
            self.leagueAbbreviation = leagueAbbreviation
            self.sportName = sportName
        }

        /// Each tag with its semantic key, in Apple's order.
        public var tags: [(key: String, value: String?)] {
            [("homeTeamName", homeTeamName), ("homeTeamAbbreviation", homeTeamAbbreviation), ("homeTeamLocation", homeTeamLocation),
             ("awayTeamName", awayTeamName), ("awayTeamAbbreviation", awayTeamAbbreviation), ("awayTeamLocation", awayTeamLocation),
             ("leagueName", leagueName), ("leagueAbbreviation", leagueAbbreviation), ("sportName", sportName)]
        }
    }

    /// The event guide's links and venue contacts. Each is a top-level pass.json key that Wallet
    /// shows only on a poster; other phones ignore them.
    public struct EventGuide: Sendable, Hashable, Codable {
        public var accessibilityURL: String?
        public var addOnURL: String?
        public var bagPolicyURL: String?
        /// An email address.
        public var contactVenueEmail: String?
        /// A phone number.
        public var contactVenuePhoneNumber: String?
        public var contactVenueWebsite: String?
        public var directionsInformationURL: String?
        public var merchandiseURL: String?
        public var orderFoodURL: String?
        public var parkingInformationURL: String?
        public var purchaseParkingURL: String?
        public var sellURL: String?
        public var transferURL: String?
        public var transitInformationURL: String?

        public init(
            accessibilityURL: String? = nil,
            addOnURL: String? = nil,
            bagPolicyURL: String? = nil,
            contactVenueEmail: String? = nil,
            contactVenuePhoneNumber: String? = nil,
            contactVenueWebsite: String? = nil,
            directionsInformationURL: String? = nil,
            merchandiseURL: String? = nil,
            orderFoodURL: String? = nil,
            parkingInformationURL: String? = nil,
            purchaseParkingURL: String? = nil,
            sellURL: String? = nil,
            transferURL: String? = nil,
            transitInformationURL: String? = nil
        ) {
            self.accessibilityURL = accessibilityURL
            self.addOnURL = addOnURL
            self.bagPolicyURL = bagPolicyURL
            self.contactVenueEmail = contactVenueEmail
            self.contactVenuePhoneNumber = contactVenuePhoneNumber
            self.contactVenueWebsite = contactVenueWebsite
            self.directionsInformationURL = directionsInformationURL
            self.merchandiseURL = merchandiseURL
            self.orderFoodURL = orderFoodURL
            self.parkingInformationURL = parkingInformationURL
            self.purchaseParkingURL = purchaseParkingURL
            self.sellURL = sellURL
            self.transferURL = transferURL
            self.transitInformationURL = transitInformationURL
        }

        /// Every link with its key, sorted by key; the two contacts that are no URL are apart.
        var urls: [(key: String, value: String?)] {
            [("accessibilityURL", accessibilityURL), ("addOnURL", addOnURL), ("bagPolicyURL", bagPolicyURL),
             ("contactVenueWebsite", contactVenueWebsite), ("directionsInformationURL", directionsInformationURL),
             ("merchandiseURL", merchandiseURL), ("orderFoodURL", orderFoodURL), ("parkingInformationURL", parkingInformationURL),
             ("purchaseParkingURL", purchaseParkingURL), ("sellURL", sellURL), ("transferURL", transferURL),
             ("transitInformationURL", transitInformationURL)]
        }

        /// Every key with its value, as pass.json gets them.
        public var entries: [(key: String, value: String?)] {
            urls + [("contactVenueEmail", contactVenueEmail), ("contactVenuePhoneNumber", contactVenuePhoneNumber)]
        }
    }

    /// One featured action (iOS 27): a card below the pass that opens `url`.
    public struct FeaturedAction: Sendable, Hashable, Codable {
        public var type: FeaturedActionType
        /// An https URL.
        public var url: String

        public init(type: FeaturedActionType, url: String) {
            self.type = type
            self.url = url
        }
    }

    /// A featured action's `type`, as Apple spells it. Any string decodes, so an unknown one is
    /// reported by `validate()` by name instead of failing to decode.
    public struct FeaturedActionType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        public var description: String { rawValue }

        /// A link to the event's schedule.
        public static let viewSchedule = FeaturedActionType(rawValue: "viewSchedule")
        /// A link to a trailer of the event.
        public static let watchTrailer = FeaturedActionType(rawValue: "watchTrailer")
        /// A link to the performers' music.
        public static let listenToMusic = FeaturedActionType(rawValue: "listenToMusic")
        /// A link to offers or rewards tied to the ticket.
        public static let viewOffersRewards = FeaturedActionType(rawValue: "viewOffersRewards")

        /// The types Apple lists for event tickets (the others belong to store cards and generic passes).
        public static let eventTicketTypes: [FeaturedActionType] = [.viewSchedule, .watchTrailer, .listenToMusic, .viewOffersRewards]
    }

    /// NFC entry (`nfc`). Only a pass type whose certificate Apple enabled for NFC may carry it.
    public struct NFC: Sendable, Hashable, Codable {
        /// What the phone sends to the reader, at most 64 bytes. Nil: each pass's own barcode
        /// message (the signed code the door scanner checks), or its serial number without a barcode.
        public var message: String?
        /// The reader's public key: Base64 of an X.509 SubjectPublicKeyInfo holding a P-256 key.
        /// Nil: the key of the pass type's NFC configuration (`withNFC(readerKey:)`); a pass is
        /// given no `nfc` while the key is unknown.
        public var encryptionPublicKey: String?
        /// Whether the holder must authenticate (Face ID, passcode) for each tap.
        public var requiresAuthentication: Bool

        public init(message: String? = nil, encryptionPublicKey: String? = nil, requiresAuthentication: Bool = false) {
            self.message = message
            self.encryptionPublicKey = encryptionPublicKey
            self.requiresAuthentication = requiresAuthentication
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            message = try container.decodeIfPresent(String.self, forKey: .message)
            encryptionPublicKey = try container.decodeIfPresent(String.self, forKey: .encryptionPublicKey)
            requiresAuthentication = try container.decodeIfPresent(Bool.self, forKey: .requiresAuthentication) ?? false
        }
    }

    /// One problem with one field. `field` is the path in this type's `Codable` form
    /// (`venueLocation.latitude`, `guide.bagPolicyURL`, `featuredActions[1].url`).
    public struct Issue: Sendable, Hashable, CustomStringConvertible {
        public let field: String
        public let message: String

        public init(field: String, message: String) {
            self.field = field
            self.message = message
        }

        public var description: String { "\(field): \(message)" }
    }

    // Decoding defaults every missing key, so details stored before a key existed still decode.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        venueName = try container.decodeIfPresent(String.self, forKey: .venueName)
        venueRegionName = try container.decodeIfPresent(String.self, forKey: .venueRegionName)
        venueRoom = try container.decodeIfPresent(String.self, forKey: .venueRoom)
        venueLocation = try container.decodeIfPresent(Location.self, forKey: .venueLocation)
        entranceDescription = try container.decodeIfPresent(String.self, forKey: .entranceDescription)
        admissionLevel = try container.decodeIfPresent(String.self, forKey: .admissionLevel)
        kind = try container.decodeIfPresent(EventKind.self, forKey: .kind) ?? .generic
        guide = try container.decodeIfPresent(EventGuide.self, forKey: .guide) ?? EventGuide()
        featuredActions = try container.decodeIfPresent([FeaturedAction].self, forKey: .featuredActions) ?? []
        nfc = try container.decodeIfPresent(NFC.self, forKey: .nfc)
        usePoster = try container.decodeIfPresent(Bool.self, forKey: .usePoster) ?? false
        eventLogoText = try container.decodeIfPresent(String.self, forKey: .eventLogoText)
    }

    private enum CodingKeys: String, CodingKey {
        case venueName, venueRegionName, venueRoom, venueLocation, entranceDescription, admissionLevel
        case kind, guide, featuredActions, nfc, usePoster, eventLogoText
    }
}

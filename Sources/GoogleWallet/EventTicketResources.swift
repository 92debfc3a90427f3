public import Foundation

/// The parts of Google's `EventTicketClass` and `EventTicketObject` PassServer writes, in the JSON
/// form of Google's REST API (camelCase keys, absent fields left out). A class is one event (its
/// name, venue, dates and look), an object one attendee's ticket (holder, seat, barcode, state).
/// What is not set is not sent: a PATCH with these bodies changes exactly the fields they hold.
public struct EventTicketClass: Codable, Sendable, Equatable {
    public var id: String
    public var issuerName: String
    public var eventName: GoogleText
    public var eventId: String?
    /// Required by Google on insert; `UNDER_REVIEW` lets the class be used at once in demo mode
    /// and submits it for review when the issuer publishes.
    public var reviewStatus: String?
    public var venue: Venue?
    public var dateTime: DateTime?
    public var logo: GoogleImage?
    public var hexBackgroundColor: String?
    public var homepageUri: GoogleURI?
    public var callbackOptions: CallbackOptions?
    /// `NOTIFY_ON_UPDATE` asks Google to tell holders about this update (within its limits).
    public var notifyPreference: String?
    /// The messages shown on every ticket of the class; a patch with them replaces Google's list.
    public var messages: [GoogleMessageItem]?

    public init(id: String, issuerName: String, eventName: GoogleText) {
        self.id = id
        self.issuerName = issuerName
        self.eventName = eventName
    }

    public struct Venue: Codable, Sendable, Equatable {
        public var name: GoogleText
        public var address: GoogleText?
        public init(name: GoogleText, address: GoogleText? = nil) {
            self.name = name
            self.address = address
        }
    }

    /// ISO 8601 date-times with their offset (Google shows them in the venue's time).
    public struct DateTime: Codable, Sendable, Equatable {
        public var start: String
        public var end: String?
        public init(start: String, end: String? = nil) {
            self.start = start
            self.end = end
        }
    }

    public struct CallbackOptions: Codable, Sendable, Equatable {
        public var url: String
        public init(url: String) { self.url = url }
    }
}

/// A message on a class or object (Google's `Message`): shown on the ticket's details; added with
/// `addMessage` as `TEXT_AND_NOTIFY` it also notifies the holders (within Google's limits).
public struct GoogleMessageItem: Codable, Sendable, Equatable {
    public var id: String
    public var header: String
    public var body: String
    /// `TEXT` or `TEXT_AND_NOTIFY`.
    public var messageType: String

    public init(id: String, header: String, body: String, messageType: String) {
        self.id = id
        self.header = header
        self.body = body
        self.messageType = messageType
    }
}

public struct EventTicketObject: Codable, Sendable, Equatable {
    public var id: String
    public var classId: String
    /// `ACTIVE`, `COMPLETED` (checked in), `EXPIRED` or `INACTIVE` (cancelled).
    public var state: String
    public var ticketHolderName: String?
    public var ticketNumber: String?
    public var seatInfo: SeatInfo?
    public var barcode: Barcode?
    public var notifyPreference: String?

    public init(id: String, classId: String, state: String) {
        self.id = id
        self.classId = classId
        self.state = state
    }

    /// The holder and the seat are always written, `null` when there is none: a patch changes the
    /// fields its body holds, so a seat removed or a name erased must be sent to be gone at Google.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(classId, forKey: .classId)
        try container.encode(state, forKey: .state)
        try container.encode(ticketHolderName, forKey: .ticketHolderName)
        try container.encodeIfPresent(ticketNumber, forKey: .ticketNumber)
        try container.encode(seatInfo, forKey: .seatInfo)
        try container.encodeIfPresent(barcode, forKey: .barcode)
        try container.encodeIfPresent(notifyPreference, forKey: .notifyPreference)
    }

    private enum CodingKeys: String, CodingKey {
        case id, classId, state, ticketHolderName, ticketNumber, seatInfo, barcode, notifyPreference
    }

    public struct SeatInfo: Codable, Sendable, Equatable {
        public var seat: GoogleText
        public init(seat: GoogleText) { self.seat = seat }
    }

    public struct Barcode: Codable, Sendable, Equatable {
        public var type: String
        public var value: String
        /// Shown under the code: what door staff type when the camera cannot read it.
        public var alternateText: String?
        public init(type: String = "QR_CODE", value: String, alternateText: String?) {
            self.type = type
            self.value = value
            self.alternateText = alternateText
        }
    }
}

/// The states of an `EventTicketObject`.
public enum EventTicketState: String, Sendable, CaseIterable {
    case active = "ACTIVE"
    case completed = "COMPLETED"
    case expired = "EXPIRED"
    case inactive = "INACTIVE"
}

/// Google's localized text: a default value in one language.
public struct GoogleText: Codable, Sendable, Equatable {
    public var defaultValue: Translated

    public init(_ value: String, language: String) {
        defaultValue = Translated(language: language, value: value)
    }

    public struct Translated: Codable, Sendable, Equatable {
        public var language: String
        public var value: String
    }
}

public struct GoogleImage: Codable, Sendable, Equatable {
    public var sourceUri: GoogleURI
    public init(uri: String) { sourceUri = GoogleURI(uri: uri) }
}

public struct GoogleURI: Codable, Sendable, Equatable {
    public var uri: String
    public var description: String?
    public init(uri: String, description: String? = nil) {
        self.uri = uri
        self.description = description
    }
}

extension JSONEncoder {
    /// Google's bodies: keys sorted (stable bytes for the same resource), no slashes escaped.
    public static var googleWallet: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

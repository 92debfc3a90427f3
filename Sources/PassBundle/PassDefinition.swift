/// The typed pass.json model (the keys PassServer reads or checks; unknown keys are kept in the
/// rendered JSON but not modelled here).
public struct PassDefinition: Sendable, Equatable {
    public var formatVersion: Int
    public var passTypeIdentifier: String
    public var serialNumber: String
    public var teamIdentifier: String
    public var organizationName: String
    public var description: String
    public var webServiceURL: String?
    public var authenticationToken: String?
    public var logoText: String?
    public var foregroundColor: String?
    public var backgroundColor: String?
    public var labelColor: String?
    public var relevantDate: String?
    public var expirationDate: String?
    public var voided: Bool?
    public var sharingProhibited: Bool?
    public var groupingIdentifier: String?
    public var barcodes: [Barcode]?
    public var eventTicket: Structure?
    public var boardingPass: Structure?
    public var coupon: Structure?
    public var generic: Structure?
    public var storeCard: Structure?
    public var semantics: Semantics?

    /// A barcode entry of `barcodes`.
    public struct Barcode: Sendable, Equatable {
        public var format: String
        public var message: String
        public var messageEncoding: String
        public var altText: String?
    }

    /// The field groups of a pass style.
    public struct Structure: Sendable, Equatable {
        public var headerFields: [Field]?
        public var primaryFields: [Field]?
        public var secondaryFields: [Field]?
        public var auxiliaryFields: [Field]?
        public var backFields: [Field]?

        /// Every field with its group name, in display order.
        public var allFields: [(group: String, field: Field)] {
            [("headerFields", headerFields), ("primaryFields", primaryFields), ("secondaryFields", secondaryFields),
             ("auxiliaryFields", auxiliaryFields), ("backFields", backFields)]
                .flatMap { group, fields in (fields ?? []).map { (group, $0) } }
        }
    }

    /// One field; `value` is text, a number or an ISO 8601 date string.
    public struct Field: Sendable, Equatable {
        public var key: String
        public var value: FieldValue
        public var label: String?
        public var changeMessage: String?
        public var dateStyle: String?
        public var timeStyle: String?
        public var ignoresTimeZone: Bool?
        public var textAlignment: String?
    }

    /// A field value: Wallet accepts strings and numbers.
    public enum FieldValue: Sendable, Equatable {
        case string(String)
        case number(Double)

        /// The string value, if it is one.
        public var string: String? { if case .string(let text) = self { text } else { nil } }
    }

    /// Semantic tags for event tickets (a subset of Apple's `SemanticTags`).
    public struct Semantics: Sendable, Equatable {
        public var eventName: String?
        public var venueName: String?
        public var eventStartDate: String?
        public var eventEndDate: String?
        public var seats: [Seat]?
        public var attendeeName: String?
    }

    /// A `SemanticTagType.Seat`.
    public struct Seat: Sendable, Equatable {
        public var seatIdentifier: String?
        public var seatRow: String?
        public var seatSection: String?
        public var seatNumber: String?
    }

    /// The style keys Wallet knows; exactly one must be present.
    public var styles: [String] {
        [("eventTicket", eventTicket), ("boardingPass", boardingPass), ("coupon", coupon), ("generic", generic), ("storeCard", storeCard)]
            .compactMap { $0.1 == nil ? nil : $0.0 }
    }

    /// The present style's structure.
    public var structure: Structure? { eventTicket ?? boardingPass ?? coupon ?? generic ?? storeCard }
}

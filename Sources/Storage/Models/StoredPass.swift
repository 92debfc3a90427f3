public import Foundation
public import PassIdentifiers

/// Whether a pass is still valid.
public enum PassStatus: String, Sendable, Equatable, CaseIterable {
    case active
    /// Cancelled by the organizer. Stored as `voided`, the schema's word since its first version
    /// (and Apple's for a pass that is no longer valid); the code says cancelled.
    case cancelled = "voided"
}

/// A pass as stored.
public struct StoredPass: Sendable, Equatable {
    public var id: Int64
    public var passTypeIdentifier: PassTypeIdentifier
    public var serialNumber: SerialNumber
    public var authenticationTokenHash: [UInt8]
    public var downloadTokenHash: [UInt8]
    /// The nonce the current download link token was derived with; 0 for the first link.
    public var downloadNonce: Int64
    public var eventID: String?
    public var attendeeName: String
    public var attendeeEmail: String?
    public var seat: String?
    /// The organizer's own id for the ticket, unique within its event.
    public var externalID: String?
    /// Values of the template's extra fields, by field name.
    public var extra: [String: ExtraValue]
    public var status: PassStatus
    public var cancellationReason: String?
    /// The global revision of the last change: the `lastUpdated` tag devices send back.
    public var revision: Int64
    /// Whole seconds since 1970, strictly increasing per pass: the `Last-Modified` value.
    public var modifiedAt: Int64
    public var createdAt: Date
    /// The highest revision of this pass served to a device (200, or 304 confirming it), and
    /// when; nil before the first such fetch.
    public var servedRevision: Int64?
    public var servedAt: Date?
    /// The language of the email that brings the ticket (`en`, `ja`); nil: the event's.
    public var language: String?
    /// When the holder was let in at the door (the first scan's time); nil before.
    public var checkedInAt: Date?
    /// The order the ticket was issued in (`StoredOrder.id`); nil for a ticket issued on its own.
    public var orderID: String? = nil

    /// The stored `search_text` of this pass.
    var searchText: String {
        SearchText.pass(attendeeName: attendeeName, attendeeEmail: attendeeEmail, serialNumber: serialNumber.rawValue, externalID: externalID)
    }

    /// `modifiedAt` as a date.
    public var modifiedDate: Date { Date(timeIntervalSince1970: Double(modifiedAt)) }

    static let columnNames = [
        "id", "pass_type_identifier", "serial_number", "authentication_token_hash", "download_token_hash", "download_nonce", "event_id",
        "attendee_name", "attendee_email", "seat", "external_id", "extra", "status", "void_reason", "revision", "modified_at", "created_at",
        "served_revision", "served_at", "language", "checked_in_at", "order_id",
    ]

    static let columns = SQLQuery(unsafeRaw: columnNames.joined(separator: ", "))

    /// The columns qualified with a table alias (`p.id, p.serial_number, …`).
    static func columns(prefix: String) -> SQLQuery {
        SQLQuery(unsafeRaw: columnNames.map { "\(prefix).\($0)" }.joined(separator: ", "))
    }
}

// Read from the store in an extension, so the type keeps its memberwise initializer.
extension StoredPass {
    /// The row `insert` wrote for `pass` (what reading it back would give).
    init(id: Int64, inserted pass: NewPass, revision: Int64, now: Date) {
        self.id = id
        passTypeIdentifier = pass.passTypeIdentifier
        serialNumber = pass.serialNumber
        authenticationTokenHash = pass.authenticationTokenHash
        downloadTokenHash = pass.downloadTokenHash
        downloadNonce = 0
        eventID = pass.eventID
        attendeeName = pass.attendeeName
        attendeeEmail = pass.attendeeEmail
        seat = pass.seat
        externalID = pass.externalID
        extra = pass.extra
        status = .active
        cancellationReason = nil
        self.revision = revision
        modifiedAt = now.storageSeconds
        createdAt = Date(storageMillis: now.storageMillis)
        servedRevision = nil
        servedAt = nil
        language = pass.language
        checkedInAt = nil
        orderID = pass.orderID
    }

    init(row: SQLRow) throws {
        id = try row.int64("id")
        passTypeIdentifier = PassTypeIdentifier(trusted: try row.string("pass_type_identifier"))
        serialNumber = SerialNumber(trusted: try row.string("serial_number"))
        authenticationTokenHash = try row.bytes("authentication_token_hash")
        downloadTokenHash = try row.bytes("download_token_hash")
        downloadNonce = try row.int64("download_nonce")
        eventID = try row.optionalString("event_id")
        attendeeName = try row.string("attendee_name")
        attendeeEmail = try row.optionalString("attendee_email")
        seat = try row.optionalString("seat")
        externalID = try row.optionalString("external_id")
        extra = try ExtraColumn.decode(try row.optionalString("extra"))
        status = PassStatus(rawValue: try row.string("status")) ?? .active
        cancellationReason = try row.optionalString("void_reason")
        revision = try row.int64("revision")
        modifiedAt = try row.int64("modified_at")
        createdAt = try row.date("created_at")
        servedRevision = try row.optionalInt64("served_revision")
        servedAt = try row.optionalDate("served_at")
        language = try row.optionalString("language")
        checkedInAt = try row.optionalDate("checked_in_at")
        orderID = try row.optionalString("order_id")
    }
}

/// The fields of a pass to create.
public struct NewPass: Sendable, Equatable {
    public var passTypeIdentifier: PassTypeIdentifier
    public var serialNumber: SerialNumber
    public var authenticationTokenHash: [UInt8]
    public var downloadTokenHash: [UInt8]
    public var eventID: String?
    public var attendeeName: String
    public var attendeeEmail: String?
    public var seat: String?
    public var externalID: String?
    public var extra: [String: ExtraValue]
    /// The language of the ticket's email; nil: the event's.
    public var language: String?
    /// The order it is issued in: the `id` of one of the import's `NewOrder`s (or of a stored order).
    public var orderID: String?

    public init(
        passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, authenticationTokenHash: [UInt8], downloadTokenHash: [UInt8],
        eventID: String? = nil, attendeeName: String, attendeeEmail: String? = nil, seat: String? = nil,
        externalID: String? = nil, extra: [String: ExtraValue] = [:], language: String? = nil, orderID: String? = nil
    ) {
        self.passTypeIdentifier = passTypeIdentifier
        self.serialNumber = serialNumber
        self.authenticationTokenHash = authenticationTokenHash
        self.downloadTokenHash = downloadTokenHash
        self.eventID = eventID
        self.attendeeName = attendeeName
        self.attendeeEmail = attendeeEmail
        self.seat = seat
        self.externalID = externalID
        self.extra = extra
        self.language = language
        self.orderID = orderID
    }

    /// The stored `search_text` of this pass.
    var searchText: String {
        SearchText.pass(attendeeName: attendeeName, attendeeEmail: attendeeEmail, serialNumber: serialNumber.rawValue, externalID: externalID)
    }
}

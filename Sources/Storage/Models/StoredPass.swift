public import Foundation

/// Whether a pass is still valid.
public enum PassStatus: String, Sendable, Equatable, CaseIterable {
    case active
    case voided
}

/// A pass as stored.
public struct StoredPass: Sendable, Equatable {
    public var id: Int64
    public var passTypeIdentifier: String
    public var serialNumber: String
    public var authenticationTokenHash: [UInt8]
    public var downloadTokenHash: [UInt8]
    /// The nonce the current download link token was derived with; 0 for the first link.
    public var downloadNonce: Int64
    public var eventID: String?
    public var attendeeName: String
    public var attendeeEmail: String?
    public var seat: String?
    public var status: PassStatus
    public var voidReason: String?
    /// The global revision of the last change: the `lastUpdated` tag devices send back.
    public var revision: Int64
    /// Whole seconds since 1970, strictly increasing per pass: the `Last-Modified` value.
    public var modifiedAt: Int64
    public var createdAt: Date

    /// `modifiedAt` as a date.
    public var modifiedDate: Date { Date(timeIntervalSince1970: Double(modifiedAt)) }

    static let columns = SQLQuery(unsafeRaw: """
        id, pass_type_identifier, serial_number, authentication_token_hash, download_token_hash, download_nonce, event_id, \
        attendee_name, attendee_email, seat, status, void_reason, revision, modified_at, created_at
        """)

    init(row: SQLRow) throws {
        id = try row.int64("id")
        passTypeIdentifier = try row.string("pass_type_identifier")
        serialNumber = try row.string("serial_number")
        authenticationTokenHash = try row.bytes("authentication_token_hash")
        downloadTokenHash = try row.bytes("download_token_hash")
        downloadNonce = try row.int64("download_nonce")
        eventID = try row.optionalString("event_id")
        attendeeName = try row.string("attendee_name")
        attendeeEmail = try row.optionalString("attendee_email")
        seat = try row.optionalString("seat")
        status = PassStatus(rawValue: try row.string("status")) ?? .active
        voidReason = try row.optionalString("void_reason")
        revision = try row.int64("revision")
        modifiedAt = try row.int64("modified_at")
        createdAt = try row.date("created_at")
    }
}

/// The fields of a pass to create.
public struct NewPass: Sendable, Equatable {
    public var passTypeIdentifier: String
    public var serialNumber: String
    public var authenticationTokenHash: [UInt8]
    public var downloadTokenHash: [UInt8]
    public var eventID: String?
    public var attendeeName: String
    public var attendeeEmail: String?
    public var seat: String?

    public init(
        passTypeIdentifier: String, serialNumber: String, authenticationTokenHash: [UInt8], downloadTokenHash: [UInt8],
        eventID: String? = nil, attendeeName: String, attendeeEmail: String? = nil, seat: String? = nil
    ) {
        self.passTypeIdentifier = passTypeIdentifier
        self.serialNumber = serialNumber
        self.authenticationTokenHash = authenticationTokenHash
        self.downloadTokenHash = downloadTokenHash
        self.eventID = eventID
        self.attendeeName = attendeeName
        self.attendeeEmail = attendeeEmail
        self.seat = seat
    }
}

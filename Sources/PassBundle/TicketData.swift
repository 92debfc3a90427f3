public import Foundation
import SystemSupport

/// Everything that varies between the passes of one template: what the application fills in
/// from its event and pass rows.
///
/// Texts such as `status` and `changeMessage` may be keys of the template's `pass.strings`
/// (`STATUS_CANCELLED`), so Wallet shows them in the phone's language.
public struct TicketData: Sendable, Equatable {
    public var serialNumber: String
    /// The pass's web-service token (≥ 16 characters); the device sends it back as `ApplePass …`.
    public var authenticationToken: String
    /// Base URL of the pass web service, e.g. `https://passes.example.com/` (https in production).
    public var webServiceURL: String
    public var organizationName: String
    /// Accessibility description of the pass (Wallet requires it).
    public var description: String
    public var eventName: String
    public var venue: String
    public var startsAt: Date
    public var endsAt: Date?
    /// IANA time zone of the venue (`Asia/Tokyo`): dates are written with its offset.
    public var timeZone: String
    public var attendeeName: String
    /// Seat label; nil for general admission (shown as the `GENERAL_ADMISSION` string).
    public var seat: String?
    /// True once the ticket is cancelled: the pass is voided (Apple's word) and its status reads "Cancelled".
    public var cancelled: Bool
    /// Why the ticket was cancelled, shown on the back of a voided pass (`CANCELLED_NO_REASON` when nil).
    public var cancellationReason: String?
    /// When the holder was let in at the door; nil before. A checked-in pass's status field reads
    /// "Checked in" with this time in the venue's zone (unless the pass is cancelled).
    public var checkedInAt: Date?
    /// Overrides the status text; by default `STATUS_CANCELLED`, `STATUS_CHECKED_IN` or `STATUS_VALID`.
    public var statusText: String?
    /// The lock-screen message when the status changes; `%@` is the new value.
    public var changeMessage: String
    /// Extra placeholders a custom template may use (`{{extra.name}}` → `extra["name"]`).
    public var extra: [String: String]
    /// The barcode's message; nil: the serial number (a pass built without a server).
    public var barcodeMessage: String?
    /// The text under the barcode; nil: the serial number.
    public var barcodeAltText: String?
    /// The organizer's announcement, shown first on the back of the pass; nil: none.
    public var announcement: Announcement?

    /// An announcement on the back of a pass. With `notify` its field carries `changeMessage`
    /// `%@`, so Wallet shows the text on the lock screen when it appears or changes.
    public struct Announcement: Sendable, Equatable {
        public var message: String
        public var notify: Bool

        public init(message: String, notify: Bool) {
            self.message = message
            self.notify = notify
        }
    }

    public init(
        serialNumber: String,
        authenticationToken: String,
        webServiceURL: String,
        organizationName: String,
        description: String,
        eventName: String,
        venue: String,
        startsAt: Date,
        endsAt: Date? = nil,
        timeZone: String,
        attendeeName: String,
        seat: String? = nil,
        cancelled: Bool = false,
        cancellationReason: String? = nil,
        checkedInAt: Date? = nil,
        statusText: String? = nil,
        changeMessage: String? = nil,
        extra: [String: String] = [:],
        barcodeMessage: String? = nil,
        barcodeAltText: String? = nil,
        announcement: Announcement? = nil
    ) {
        self.announcement = announcement
        self.serialNumber = serialNumber
        self.authenticationToken = authenticationToken
        self.webServiceURL = webServiceURL
        self.organizationName = organizationName
        self.description = description
        self.eventName = eventName
        self.venue = venue
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.timeZone = timeZone
        self.attendeeName = attendeeName
        self.seat = seat
        self.cancelled = cancelled
        self.cancellationReason = cancellationReason
        self.checkedInAt = checkedInAt
        self.statusText = statusText
        // A check-in is announced as such; any other status change with the generic message.
        self.changeMessage = changeMessage ?? (checkedInAt != nil && !cancelled ? "STATUS_CHECKED_IN_CHANGE_MESSAGE" : "STATUS_CHANGE_MESSAGE")
        self.extra = extra
        self.barcodeMessage = barcodeMessage
        self.barcodeAltText = barcodeAltText
    }

    /// The status text (`{{status}}`): a `pass.strings` key unless overridden.
    public var status: String {
        statusText ?? (cancelled ? "STATUS_CANCELLED" : checkedInAt != nil ? "STATUS_CHECKED_IN" : "STATUS_VALID")
    }

    /// Whether the status field shows the check-in time (checked in, not cancelled, no override).
    var showsCheckInTime: Bool { checkedInAt != nil && !cancelled && statusText == nil }

    /// How long after the event's end the pass expires (Wallet then shows it as expired).
    public static let expiryAfterEnd: TimeInterval = 86_400

    /// When the pass expires: a day after the event ends; nil without an end.
    public var expirationDate: Date? { endsAt.map { $0.addingTimeInterval(Self.expiryAfterEnd) } }

    /// The back field a cancelled pass shows first: why it was cancelled. Nil for a valid pass (the
    /// `{{cancellationField}}` array element then disappears).
    public var cancellationField: JSONValue? {
        guard cancelled else { return nil }
        return .object(["key": .string("cancellation"), "label": .string("CANCELLATION"), "value": .string(cancellationReason ?? "CANCELLED_NO_REASON")])
    }

    /// The placeholder values for `Template.render`, including the signer's identifiers.
    public func templateValues(passTypeIdentifier: String, teamIdentifier: String) throws(PassBundleError) -> [String: JSONValue] {
        guard let zone = TimeZoneCache.zone(timeZone) else {
            throw PassBundleError(.invalidData, "timeZone: \(timeZone) is not a known IANA time zone identifier")
        }
        var values: [String: JSONValue] = [
            "passTypeIdentifier": .string(passTypeIdentifier),
            "teamIdentifier": .string(teamIdentifier),
            "serialNumber": .string(serialNumber),
            "authenticationToken": .string(authenticationToken),
            "webServiceURL": .string(webServiceURL),
            "organizationName": .string(organizationName),
            "description": .string(description),
            "eventName": .string(eventName),
            "venue": .string(venue),
            "startsAt": .string(ISO8601Zoned.format(startsAt, in: zone)),
            "endsAt": endsAt.map { .string(ISO8601Zoned.format($0, in: zone)) } ?? .null,
            // Lock-screen relevance ends with the ticket: a cancelled pass has no relevant date.
            "relevantDate": cancelled ? .null : .string(ISO8601Zoned.format(startsAt, in: zone)),
            "expirationDate": expirationDate.map { .string(ISO8601Zoned.format($0, in: zone)) } ?? .null,
            "cancellationField": cancellationField ?? .null,
            "timeZone": .string(timeZone),
            "attendeeName": .string(attendeeName),
            "seat": seat.map(JSONValue.string) ?? .null,
            "seatDisplay": .string(seat ?? "GENERAL_ADMISSION"),
            "voided": .bool(cancelled),
            "status": .string(status),
            // The bundled template's status field: "Status: Valid", or "Checked in: 19:05" (the
            // label from pass.strings, the time in the venue's zone, formatted by Wallet in the
            // phone's language), with the keys a time needs removed (`.null`) otherwise.
            "statusLabel": .string(showsCheckInTime ? "STATUS_CHECKED_IN" : "STATUS"),
            "statusValue": checkedInAt.flatMap { at in showsCheckInTime ? .string(ISO8601Zoned.format(at, in: zone)) : nil } ?? .string(status),
            "statusDateStyle": showsCheckInTime ? .string("PKDateStyleNone") : .null,
            "statusTimeStyle": showsCheckInTime ? .string("PKDateStyleShort") : .null,
            "statusIgnoresTimeZone": showsCheckInTime ? .bool(true) : .null,
            "changeMessage": .string(changeMessage),
            "barcodeMessage": .string(barcodeMessage ?? serialNumber),
            "barcodeAltText": .string(barcodeAltText ?? serialNumber),
        ]
        for (key, value) in extra { values["extra." + key] = .string(value) }
        return values
    }
}

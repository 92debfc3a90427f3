import ByteEncoding
import Foundation
import GoogleWallet
import PassBundle
import PassIdentifiers
import Storage

/// Writes an event as Google's `EventTicketClass` and a ticket as its `EventTicketObject`, from
/// what the Apple pass is written from: the event's name, venue, dates and design (its icon as
/// Google's round logo, its background colour), and the ticket's holder, seat, state and the same
/// signed barcode with its check code shown under it. Nothing else about the attendee (no email,
/// no extra fields) goes to Google.
struct GoogleTickets: Sendable {
    let issuerID: String
    /// `issuerName` of every class: the operator's organization, as on the Apple passes.
    let issuerName: String
    /// Base of the callback URL and of the images Google fetches.
    let publicURL: URL
    let vault: TokenVault

    func classID(event: String) -> String { GoogleWalletIDs.classID(issuer: issuerID, event: event) }
    func objectID(serial: SerialNumber) -> String { GoogleWalletIDs.objectID(issuer: issuerID, serial: serial.rawValue) }

    /// The event's class; `notify` asks Google to tell holders (a new time or place).
    func eventClass(_ event: Event, design: PassDesign, notify: Bool) -> EventTicketClass {
        let language = event.language
        var resource = EventTicketClass(id: classID(event: event.id), issuerName: issuerName, eventName: GoogleText(event.name, language: language))
        resource.reviewStatus = "UNDER_REVIEW"
        let venueName = design.details.venueName ?? event.venue
        resource.venue = EventTicketClass.Venue(
            name: GoogleText(venueName, language: language),
            address: design.details.venueRegionName.map { GoogleText($0, language: language) }
        )
        resource.dateTime = EventTicketClass.DateTime(
            start: ISODate.format(event.startsAt, timeZone: event.timeZone),
            end: event.endsAt.map { ISODate.format($0, timeZone: event.timeZone) }
        )
        if let icon = design.images[PassImageKind.icon.rawValue] {
            resource.logo = GoogleImage(uri: publicURL.appendingPathComponent("images").appendingPathComponent(icon).absoluteString + "?scale=3")
        }
        resource.hexBackgroundColor = design.backgroundColor.flatMap(Self.hexColor)
        resource.callbackOptions = EventTicketClass.CallbackOptions(url: publicURL.appendingPathComponent("google-wallet/callback").absoluteString)
        if notify { resource.notifyPreference = "NOTIFY_ON_UPDATE" }
        return resource
    }

    /// The event's announcement as a message of its class; `notifying` asks Google to notify the
    /// holders (`TEXT_AND_NOTIFY`, sent with `addMessage`).
    func message(_ announcement: EventAnnouncement, notifying: Bool) -> GoogleMessageItem {
        GoogleMessageItem(id: announcement.id, header: "Announcement", body: announcement.message, messageType: notifying ? "TEXT_AND_NOTIFY" : "TEXT")
    }

    /// The ticket's object; `notify` asks Google to tell its holder (a cancellation, a new seat).
    func object(_ pass: StoredPass, event: Event, notify: Bool) throws -> EventTicketObject {
        var resource = EventTicketObject(id: objectID(serial: pass.serialNumber), classId: classID(event: event.id), state: Self.state(of: pass, event: event).rawValue)
        // An erased ticket's holder is gone: null at Google too.
        resource.ticketHolderName = pass.attendeeName.isEmpty ? nil : pass.attendeeName
        resource.ticketNumber = pass.serialNumber.rawValue
        resource.seatInfo = pass.seat.map { EventTicketObject.SeatInfo(seat: GoogleText($0, language: pass.language ?? event.language)) }
        let barcode = try vault.barcode(passType: pass.passTypeIdentifier, serial: pass.serialNumber)
        resource.barcode = EventTicketObject.Barcode(value: barcode.message, alternateText: barcode.checkCode)
        if notify { resource.notifyPreference = "NOTIFY_ON_UPDATE" }
        return resource
    }

    /// Cancelled tickets are inactive, checked-in ones completed, the others of an archived event
    /// expired.
    static func state(of pass: StoredPass, event: Event?) -> EventTicketState {
        if pass.status == .cancelled { return .inactive }
        if pass.checkedInAt != nil { return .completed }
        if event?.archivedAt != nil { return .expired }
        return .active
    }

    /// `#rrggbb` of a pass.json colour (`rgb(r, g, b)` or `#rrggbb`).
    static func hexColor(_ color: String) -> String? {
        guard let normalized = PassDesign.color(color), normalized.hasPrefix("rgb(") else { return nil }
        let parts = normalized.dropFirst(4).dropLast().split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3 else { return nil }
        return "#" + parts.map { Hex.encode([UInt8(clamping: $0)]) }.joined()
    }
}

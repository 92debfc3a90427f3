import Foundation
import PassBundle
import Storage

/// A new ticket as the admin API takes it: one `POST …/tickets` body, or one row of a batch.
struct TicketInput {
    /// The body fields of a ticket; `extra` holds the template's declared fields.
    static let fields: Set<String> = ["attendeeName", "attendeeEmail", "seat", "externalId", "extra"]

    var attendeeName: String
    var attendeeEmail: String?
    var seat: String?
    var externalID: String?
    var extra: [String: ExtraValue]

    /// Reads a new ticket from `input` (created with `allowed: fields`); nil after naming every
    /// problem in `input`.
    static func read(_ input: inout AdminInput, declared: [TemplateField]) -> TicketInput? {
        let name = input.requiredText("attendeeName")
        let email = email(&input)
        var seat: String?
        if case .value(let value) = input.text("seat", maxLength: 64) { seat = value }
        var externalID: String?
        if case .value(let value) = input.text("externalId", maxLength: externalIDMaxLength) { externalID = value }
        let extra = input.extras(declared: declared, creating: true).compactMapValues { $0 }
        guard let name, input.issues.isEmpty else { return nil }
        return TicketInput(attendeeName: name, attendeeEmail: email, seat: seat, externalID: externalID, extra: extra)
    }

    /// The longest external id, in characters.
    static let externalIDMaxLength = 128

    /// `attendeeEmail`: `local@domain.tld`, without spaces.
    static func email(_ input: inout AdminInput) -> String? {
        guard case .value(let email) = input.text("attendeeEmail", maxLength: 254) else { return nil }
        // On UTF-8 bytes: one `@` with something before it, a dot after it, no space.
        let bytes = email.utf8
        let at = bytes.firstIndex(of: UInt8(ascii: "@"))
        guard let at, at != bytes.startIndex, !bytes[bytes.index(after: at)...].contains(UInt8(ascii: "@")),
            bytes[at...].contains(UInt8(ascii: ".")), !bytes.contains(UInt8(ascii: " "))
        else {
            input.problem("attendeeEmail", "is not an email address")
            return nil
        }
        return email
    }
}

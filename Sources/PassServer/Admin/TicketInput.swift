import Foundation
import PassBundle
import Storage

/// A new ticket as the admin API takes it: one `POST …/tickets` body, or one row of a batch.
struct TicketInput {
    /// The body fields of a ticket; `extra` holds the template's declared fields.
    static let fields: Set<String> = ["attendeeName", "attendeeEmail", "seat", "externalId", "language", "extra"]

    var attendeeName: String
    var attendeeEmail: String?
    var seat: String?
    var externalID: String?
    /// The language of the ticket's email; nil: the event's.
    var language: String?
    var extra: [String: ExtraValue]

    /// Reads a new ticket from `input` (created with `allowed: fields`); nil after naming every
    /// problem in `input`.
    static func read(_ input: inout AdminInput, declared: [TemplateField]) -> TicketInput? {
        let name = input.requiredText("attendeeName")
        let email = input.email("attendeeEmail").value
        let seat = input.text("seat", maxLength: 64).value
        let externalID = input.text("externalId", maxLength: externalIDMaxLength).value
        let language = input.language("language").value
        let extra = input.extras(declared: declared, creating: true).compactMapValues { $0 }
        guard let name, input.issues.isEmpty else { return nil }
        return TicketInput(attendeeName: name, attendeeEmail: email, seat: seat, externalID: externalID, language: language, extra: extra)
    }

    /// The longest external id, in characters.
    static let externalIDMaxLength = 128
}

import Foundation
import Storage

/// The body of a delivery (docs/webhooks.md): the webhook event's id, type and time, and its data,
/// the ticket and event as the admin API shows them (`TicketBody`, `EventBody`) as they were when
/// the change was made. Made from the webhook event's row alone, with sorted keys, so every
/// delivery of one webhook event carries the same bytes.
struct WebhookPayload: Encodable {
    var id: String
    var type: String
    var createdAt: String
    var data: Data

    struct Data: Encodable {
        var ticket: TicketBody?
        var event: EventBody?
        /// `ticket.checked_in`: the check-in.
        var checkIn: CheckIn?
        /// `email.failed`: the mail server's last reply.
        var email: Email?
        /// `googlewallet.saved`, `googlewallet.removed`: whether the ticket is saved in Google Wallet now.
        var googleWallet: GoogleWallet?
    }

    struct CheckIn: Encodable {
        var checkedInAt: String
        var gate: String?
        var scanner: String?
    }

    struct Email: Encodable {
        var status: String
        var reply: String?
    }

    struct GoogleWallet: Encodable {
        var saved: Bool
    }

    /// The payload of `event`; `downloadURL` gives a ticket's link (nil: none shown); `events`
    /// keeps the events already read, by their stored JSON (a large event's tickets share one).
    /// Throws when the recorded ticket, event or detail cannot be read.
    init(_ event: WebhookEventRecord, downloadURL: (StoredPass) -> String?, events: inout EventBodies) throws {
        let contents = try event.contents(readingEvent: false)
        id = event.publicID
        type = event.type
        createdAt = ISODate.format(event.createdAt)
        data = Data(
            ticket: contents.ticket.map { TicketBody($0, downloadURL: downloadURL($0)) },
            event: try event.eventJSON.map { try events.body(of: $0) }
        )
        switch WebhookEventType(rawValue: event.type) {
        case .ticketCheckedIn?:
            if let detail = contents.detail, let at = detail.checkedInDate {
                data.checkIn = CheckIn(checkedInAt: ISODate.format(at), gate: detail.gate, scanner: detail.scanner)
            }
        case .emailFailed?:
            data.email = Email(status: "failed", reply: contents.detail?.reply)
        case .googleWalletSaved?, .googleWalletRemoved?:
            data.googleWallet = GoogleWallet(saved: event.type == WebhookEventType.googleWalletSaved.rawValue)
        default:
            break
        }
    }

    /// The body's bytes: what the admin API's encoder writes (sorted keys), written by `SortedJSON`.
    func encoded() throws -> [UInt8] {
        try SortedJSON.encode(self)
    }
}

/// The events of webhook bodies already read, by their stored JSON: the same text is the same
/// event as it was, so its `EventBody` is made once. Bounded; one per sending thread.
struct EventBodies {
    static let capacity = 64
    private var bodies: [String: EventBody] = [:]

    mutating func body(of json: String) throws -> EventBody {
        if let known = bodies[json] { return known }
        let body = EventBody(try WebhookEventRecord.event(from: json))
        if bodies.count >= Self.capacity { bodies.removeAll(keepingCapacity: true) }
        bodies[json] = body
        return body
    }
}

import Foundation
import Storage

/// A new ticket as an organizer gave it, not yet checked: one issued on its own, or one row of
/// an import.
struct TicketDraft: Sendable, Equatable {
    var attendeeName: String?
    var attendeeEmail: String?
    var seat: String?
    var externalID: String?
    /// The language of the ticket's email; nil: the event's.
    var language: String?
    /// Values for the template's extra fields; nil when none were given.
    var extra: [String: ExtraInput]?
    /// A row of an upload: the order it is issued in (`orderFields`), nil for none.
    var orderID: String?
    var buyerEmail: String?
    var buyerName: String?
    /// What the transport could not read into the fields above; reported with the draft's own problems.
    var unreadable: [OrganizerError.Issue] = []

    /// The fields of a ticket as the API and the forms name them, in the order their problems are named.
    static let fields = ["attendeeName", "attendeeEmail", "seat", "externalId", "language", "extra"]

    /// The longest external id, in characters.
    static let externalIDMaxLength = 128
}

/// A change of a ticket's holder fields: nil leaves a field as it is, `.some(nil)` removes an
/// optional value; `extra` names only the fields that change (`.null` removes a value).
struct TicketEdit: Sendable, Equatable {
    var attendeeName: String?
    var seat: String??
    var attendeeEmail: String??
    var externalID: String??
    var language: String??
    var extra: [String: ExtraInput]?
    var unreadable: [OrganizerError.Issue] = []
}

/// A new ticket after its checks: texts trimmed, extra values as the template declares them.
struct NewTicket: Sendable, Equatable {
    var attendeeName: String
    var attendeeEmail: String?
    var seat: String?
    var externalID: String?
    var language: String?
    var extra: [String: ExtraValue]
    /// The `orderId` of its upload row (`ImportOrder.key`); nil: issued on its own.
    var orderKey: String? = nil
}

/// A ticket with what became of its email (for a ticket of an order: the order's email).
struct Ticket: Sendable, Equatable {
    var pass: StoredPass
    /// nil until an email was queued.
    var email: TicketEmail?
    /// Its check-in at the door: when, at which gate, by which scanner; nil when not checked in.
    var checkIn: CheckIn?

    var isActive: Bool { pass.status == .active }
}

/// A ticket with the phones holding it, the latest pushes to them and the registrations pruned.
struct TicketDetails: Sendable, Equatable {
    var ticket: Ticket
    var devices: [RegisteredDevice]
    var pushes: [PushLogEntry]
    var prunes: [RegistrationPrune]
    /// Its check-ins that were undone, newest first, with who undid them.
    var undoneCheckIns: [UndoneCheckIn] = []
    /// What Google Wallet told us of the ticket (nil before any callback); `googleWalletEnabled`
    /// says whether to show it at all.
    var googleWallet: GoogleWalletTicket? = nil
    var googleWalletEnabled = false
}

/// Which tickets of an event to list, in issue order.
struct TicketQuery: Sendable, Equatable {
    var status: PassStatus?
    /// A case-insensitive substring of the attendee's name or email, the serial number or the external id.
    var search: String?
    /// `lastModified` at or after.
    var updatedSince: Date?
    /// Checked in (true) or not (false).
    var checkedIn: Bool?
    /// Of this order (its id).
    var orderID: String?
    /// The `nextCursor` of the previous page.
    var cursor: Int64?
    /// 1 to 500.
    var limit = 50
    var unreadable: [OrganizerError.Issue] = []

    static let fields = ["status", "checkedIn", "orderId", "q", "updatedSince", "cursor", "limit"]
}

/// One page of an event's tickets.
struct TicketList: Sendable, Equatable {
    var tickets: [Ticket]
    var nextCursor: String?
}

/// A ticket issued on its own: new, or the one the event already had with its external id.
struct IssuedTicket: Sendable, Equatable {
    var ticket: Ticket
    var created: Bool
}

/// An upload of new tickets checked row by row, nothing issued yet.
struct TicketImportCheck {
    /// Every row as read (a spreadsheet's row numbers for CSV).
    var rows: [TicketImport.Row]
    /// The valid rows' tickets.
    var tickets: [(row: Int, ticket: NewTicket)]
    /// What is wrong, per row and field; empty when every row is valid.
    var problems: [RowIssue]
    /// The orders the rows name, by `orderId`.
    var orders: [String: ImportOrder] = [:]
}

/// A problem of one row of an upload.
struct RowIssue: Sendable, Equatable {
    var row: Int
    /// The field (JSON) or column (CSV); nil when the row as a whole is unreadable.
    var field: String?
    var message: String
}

/// What an import did.
enum TicketImportOutcome {
    /// Nothing was issued: these rows are invalid (or their passes cannot be built).
    case invalid([RowIssue])
    case imported(TicketImportResult)
}

struct TicketImportResult: Sendable, Equatable {
    /// Every row's ticket, in the order uploaded, and whether it is new.
    var entries: [Entry]
    /// With `notify`: the new tickets whose email was queued (a ticket of an order counts once
    /// its order's email is queued); nil without.
    var emailsQueued: Int?
    /// The orders the upload's rows were issued in, by `orderId`.
    var orders: [String: StoredOrder] = [:]

    struct Entry: Sendable, Equatable {
        var row: Int
        var pass: StoredPass
        var created: Bool
    }

    var created: Int { entries.count { $0.created } }
    var existing: Int { entries.count - created }
}

import Foundation
import Storage

/// A new event as an organizer gave it, not yet checked: texts as typed, dates as read.
struct EventDraft: Sendable, Equatable {
    var name: String?
    var venue: String?
    var startsAt: Date?
    var endsAt: Date?
    /// nil: UTC.
    var timeZone: String?
    /// nil: `event-ticket`.
    var template: String?
    /// nil: `en`.
    var language: String?
    /// The organizer confirmed that the event starts in the past (a start in the past is
    /// otherwise refused as `start_in_past`: most often a wrong day or year typed).
    var confirmPastStart = false
    /// What the transport could not read into the fields above (a value of the wrong kind, an
    /// unknown field); reported with the draft's own problems.
    var unreadable: [OrganizerError.Issue] = []

    /// The fields of an event, in the order their problems are named.
    static let fields = ["name", "venue", "startsAt", "endsAt", "timeZone", "template", "language"]
}

/// A change of an event as an organizer gave it: nil leaves a field as it is; `endsAt: .some(nil)`
/// removes the end.
struct EventEdit: Sendable, Equatable {
    var name: String?
    var venue: String?
    var startsAt: Date?
    var endsAt: Date??
    var timeZone: String?
    var language: String?
    var template: String?
    var unreadable: [OrganizerError.Issue] = []

    /// Whether the change names no field.
    var isEmpty: Bool {
        name == nil && venue == nil && startsAt == nil && endsAt == nil && timeZone == nil && language == nil && template == nil
    }
}

/// An event with its counts, reach, check-ins and email states.
struct EventDetails: Sendable, Equatable {
    var event: Event
    /// Tickets, cancellations, phones and pushes, summed over the event's tallies.
    var tally: Tally
    var emails: EmailCounts
    /// Active tickets checked in at the door.
    var checkedIn: Int
    /// Tickets saved in Google Wallet now; nil while Google Wallet is off.
    var googleWalletSaved: Int64? = nil

    /// The tickets not cancelled.
    var activeTickets: Int64 { tally.tickets - tally.cancelled }
}

/// Which events to list: newest first (start time descending, then id).
struct EventQuery: Sendable, Equatable {
    /// A case-insensitive substring of the name or venue.
    var search: String?
    /// Starting at or after.
    var startsFrom: Date?
    /// Starting before.
    var startsBefore: Date?
    /// Only archived events (true), only the others (false), or both (nil).
    var archived: Bool?
    /// The `nextCursor` of the previous page.
    var cursor: String?
    /// 1 to 100.
    var limit = 20
    var unreadable: [OrganizerError.Issue] = []

    static let fields = ["q", "from", "to", "archived", "cursor", "limit"]
}

/// One page of events.
struct EventList: Sendable, Equatable {
    var events: [EventDetails]
    /// The cursor of the next page; nil on the last.
    var nextCursor: String?
}

/// An event change and the re-push job it started (none when no pass shows what changed).
struct EventUpdate: Sendable, Equatable {
    var event: Event
    var job: Job?
}

public import Foundation

/// An event that passes belong to.
public struct Event: Sendable, Equatable {
    /// A random opaque identifier (22 base62 characters).
    public var id: String
    public var name: String
    public var venue: String
    public var startsAt: Date
    public var endsAt: Date?
    /// An IANA time zone name such as `Europe/Paris`.
    public var timeZone: String
    /// The pass template name under `Passes/`.
    public var template: String
    public var revision: Int64
    public var createdAt: Date
    public var updatedAt: Date
    /// When the event was archived; nil while it is not. Changes to an archived event's passes
    /// are stored and served but enqueue no pushes.
    public var archivedAt: Date?
    /// The language of the tickets' email (`en`, `ja`), unless a ticket has its own.
    public var language: String
    /// The event's own pass design as the application encodes it; nil: the template as it is.
    public var design: String?
    /// When an admin deleted the event; nil while it is not deleted. A deleting event's tickets
    /// are voided and still served to phones until the retention sweep removes it.
    public var deletingAt: Date? = nil
    /// When its attendees' data was erased; nil while it is not.
    public var erasedAt: Date? = nil
    /// The announcement its passes carry now; nil: none.
    public var announcement: EventAnnouncement? = nil
}

/// The announcement an event's passes carry: its id, its text, and whether its back field alerts
/// the lock screen when it appears.
public struct EventAnnouncement: Sendable, Equatable {
    public var id: String
    public var message: String
    public var notify: Bool

    public init(id: String, message: String, notify: Bool) {
        self.id = id
        self.message = message
        self.notify = notify
    }
}

// Read from the store in an extension, so the type keeps its memberwise initializer.
extension Event {
    init(row: SQLRow) throws {
        id = try row.string("id")
        name = try row.string("name")
        venue = try row.string("venue")
        startsAt = try row.date("starts_at")
        endsAt = try row.optionalDate("ends_at")
        timeZone = try row.string("time_zone")
        template = try row.string("template")
        revision = try row.int64("revision")
        createdAt = try row.date("created_at")
        updatedAt = try row.date("updated_at")
        archivedAt = try row.optionalDate("archived_at")
        language = try row.string("language")
        design = try row.optionalString("design")
        deletingAt = try row.optionalDate("deleting_at")
        erasedAt = try row.optionalDate("erased_at")
        if let id = try row.optionalString("announcement_id") {
            announcement = EventAnnouncement(id: id, message: try row.string("announcement"), notify: try row.int("announcement_notify") != 0)
        }
    }
}

/// The fields of an event to create.
public struct NewEvent: Sendable, Equatable {
    public var name: String
    public var venue: String
    public var startsAt: Date
    public var endsAt: Date?
    public var timeZone: String
    public var template: String
    public var language: String

    public init(
        name: String, venue: String, startsAt: Date, endsAt: Date? = nil, timeZone: String, template: String, language: String = "en"
    ) {
        self.name = name
        self.venue = venue
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.timeZone = timeZone
        self.template = template
        self.language = language
    }
}

/// A change to an event; `nil` leaves a field as it is, `endsAt: .some(nil)` clears the end.
public struct EventChange: Sendable, Equatable {
    public var name: String?
    public var venue: String?
    public var startsAt: Date?
    public var endsAt: Date??
    public var timeZone: String?
    public var template: String?
    /// The tickets' email language; changes no pass content (no re-push).
    public var language: String?
    /// The pass design (`.some(nil)` goes back to the template as it is).
    public var design: String??
    /// The announcement the passes carry (`.some(nil)` takes it off). A change of nothing else
    /// starts an announcement job, which bumps the active passes only.
    public var announcement: EventAnnouncement??

    public init(
        name: String? = nil, venue: String? = nil, startsAt: Date? = nil, endsAt: Date?? = nil,
        timeZone: String? = nil, template: String? = nil, language: String? = nil, design: String?? = nil,
        announcement: EventAnnouncement?? = nil
    ) {
        self.announcement = announcement
        self.name = name
        self.venue = venue
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.timeZone = timeZone
        self.template = template
        self.language = language
        self.design = design
    }
}

extension Event {
    /// The event with `change` made (the row as `updateEvent` writes it, revision aside).
    public func applying(_ change: EventChange) -> Event {
        var target = self
        if let name = change.name { target.name = name }
        if let venue = change.venue { target.venue = venue }
        if let startsAt = change.startsAt { target.startsAt = startsAt }
        if let endsAt = change.endsAt { target.endsAt = endsAt }
        if let timeZone = change.timeZone { target.timeZone = timeZone }
        if let template = change.template { target.template = template }
        if let language = change.language { target.language = language }
        if let design = change.design { target.design = design }
        if let announcement = change.announcement { target.announcement = announcement }
        return target
    }
}

/// Counts shown on an event's admin page (from `Tally`).
public struct EventCounts: Sendable, Equatable {
    public var tickets: Int
    public var cancelled: Int
    /// Distinct phones registered for at least one pass of the event.
    public var registeredDevices: Int
    /// Pushes enqueued for changes of the event's passes that still wait in the outbox.
    public var pendingPushes: Int
    /// Pushes for the event's changes given up on since the event was created.
    public var failedPushes: Int
}

extension EventCounts {
    public init(_ total: Tally) {
        self.init(
            tickets: Int(total.tickets), cancelled: Int(total.cancelled), registeredDevices: Int(total.registeredDevices),
            pendingPushes: Int(total.pushesPending), failedPushes: Int(total.pushesFailed)
        )
    }
}

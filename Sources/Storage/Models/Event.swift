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

    public init(name: String, venue: String, startsAt: Date, endsAt: Date? = nil, timeZone: String, template: String) {
        self.name = name
        self.venue = venue
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.timeZone = timeZone
        self.template = template
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

    public init(
        name: String? = nil, venue: String? = nil, startsAt: Date? = nil, endsAt: Date?? = nil,
        timeZone: String? = nil, template: String? = nil
    ) {
        self.name = name
        self.venue = venue
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.timeZone = timeZone
        self.template = template
    }
}

/// Counts shown on an event's admin page.
public struct EventCounts: Sendable, Equatable {
    public var tickets: Int
    public var voided: Int
    /// Distinct devices registered for at least one pass of the event.
    public var registeredDevices: Int
    /// Outbox rows waiting for the push tokens of the event's registrations. A token registered
    /// for passes of several events counts for each, so this is approximate.
    public var pendingPushes: Int
    public var failedPushes: Int

    /// The counts of an event without passes.
    public static let zero = EventCounts(tickets: 0, voided: 0, registeredDevices: 0, pendingPushes: 0, failedPushes: 0)

    public init(tickets: Int, voided: Int, registeredDevices: Int, pendingPushes: Int, failedPushes: Int) {
        self.tickets = tickets
        self.voided = voided
        self.registeredDevices = registeredDevices
        self.pendingPushes = pendingPushes
        self.failedPushes = failedPushes
    }
}

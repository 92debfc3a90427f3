public import Foundation

/// Which events a list shows. Every condition set must hold.
public struct EventFilter: Sendable, Equatable {
    /// A case-insensitive substring of the name or the venue.
    public var search: String?
    /// Events starting at or after this instant.
    public var startsFrom: Date?
    /// Events starting before this instant.
    public var startsBefore: Date?
    /// Only archived events (true) or only events that are not archived (false).
    public var archived: Bool?

    public init(search: String? = nil, startsFrom: Date? = nil, startsBefore: Date? = nil, archived: Bool? = nil) {
        self.search = search
        self.startsFrom = startsFrom
        self.startsBefore = startsBefore
        self.archived = archived
    }
}

/// Where a page of the events list ends, newest first: the last event's start time and id. The
/// next page holds the events after it in the order `starts_at DESC, id ASC`.
public struct EventListPosition: Sendable, Equatable {
    /// `starts_at` as stored (milliseconds since 1970).
    public var startsAtMillis: Int64
    public var id: String

    public init(startsAtMillis: Int64, id: String) {
        self.startsAtMillis = startsAtMillis
        self.id = id
    }

    public init(after event: Event) {
        self.init(startsAtMillis: event.startsAt.storageMillis, id: event.id)
    }
}

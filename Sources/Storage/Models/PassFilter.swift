public import Foundation

/// Which of an event's passes a list shows. Every condition set must hold.
public struct PassFilter: Sendable, Equatable {
    public var status: PassStatus?
    /// A case-insensitive substring of the attendee's name or email, the serial number or the
    /// external id.
    public var search: String?
    /// Passes whose `Last-Modified` time (whole seconds) is at or after this instant.
    public var modifiedSince: Date?
    /// Passes checked in (true) or not (false).
    public var checkedIn: Bool?
    /// Passes of this order (its key).
    public var orderID: String?

    public init(status: PassStatus? = nil, search: String? = nil, modifiedSince: Date? = nil, checkedIn: Bool? = nil, orderID: String? = nil) {
        self.status = status
        self.search = search
        self.modifiedSince = modifiedSince
        self.checkedIn = checkedIn
        self.orderID = orderID
    }
}

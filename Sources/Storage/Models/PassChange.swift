public import Foundation

/// A change to a pass. `nil` leaves a field as it is; `.some(nil)` clears an optional field.
public struct PassChange: Sendable, Equatable {
    public var attendeeName: String?
    public var attendeeEmail: String??
    public var seat: String??
    public var externalID: String??
    /// Extra field values to set; a `nil` value removes that field. Fields not named stay.
    public var extra: [String: ExtraValue?]
    public var status: PassStatus?
    public var cancellationReason: String??
    /// The language of the ticket's email; `.some(nil)`: the event's. Changes no pass content.
    public var language: String??
    /// When the holder was let in; `.some(nil)` undoes a check-in. Set by `checkIn`/`undoCheckIn`.
    public var checkedInAt: Date??
    /// Bump the revision and notify devices even if no field changes (the pass's look changed).
    public var touch: Bool

    public init(
        attendeeName: String? = nil, attendeeEmail: String?? = nil, seat: String?? = nil, externalID: String?? = nil,
        extra: [String: ExtraValue?] = [:], status: PassStatus? = nil, cancellationReason: String?? = nil, language: String?? = nil,
        checkedInAt: Date?? = nil, touch: Bool = false
    ) {
        self.attendeeName = attendeeName
        self.attendeeEmail = attendeeEmail
        self.seat = seat
        self.externalID = externalID
        self.extra = extra
        self.status = status
        self.cancellationReason = cancellationReason
        self.language = language
        self.checkedInAt = checkedInAt
        self.touch = touch
    }

    /// The pass with this change applied (revision and time untouched).
    func applied(to pass: StoredPass) -> StoredPass {
        var result = pass
        if let attendeeName { result.attendeeName = attendeeName }
        if let attendeeEmail { result.attendeeEmail = attendeeEmail }
        if let seat { result.seat = seat }
        if let externalID { result.externalID = externalID }
        for (name, value) in extra {
            if let value { result.extra[name] = value } else { result.extra.removeValue(forKey: name) }
        }
        if let status { result.status = status }
        if let cancellationReason { result.cancellationReason = cancellationReason }
        if let language { result.language = language }
        if let checkedInAt { result.checkedInAt = checkedInAt.map { Date(storageMillis: $0.storageMillis) } }
        return result
    }
}

/// What `updatePass` did.
public enum PassUpdate: Sendable, Equatable {
    /// The pass changed: new revision and modification time, pushes enqueued for its devices.
    case updated(StoredPass, pushTokensEnqueued: Int)
    /// The change altered nothing; no revision was taken and nothing was enqueued.
    case unchanged(StoredPass)

    /// The pass after the call.
    public var pass: StoredPass {
        switch self {
        case .updated(let pass, _), .unchanged(let pass): pass
        }
    }
}

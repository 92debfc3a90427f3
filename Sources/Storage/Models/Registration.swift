public import PassIdentifiers

/// What `upsertRegistration` did (Apple: 201 for a new registration, 200 for an existing one).
public enum RegistrationResult: Sendable, Equatable {
    case created
    case updated
}

/// The serial numbers a device should refetch, and the tag to return as `lastUpdated`.
public struct ChangedSerials: Sendable, Equatable {
    public var serialNumbers: [SerialNumber]
    /// The highest revision among them; `nil` when the list is empty.
    public var lastRevision: Int64?
    /// Whether a listed registration has not yet been told `lastRevision` (`recordTold` then has
    /// something to write; otherwise answering costs no write).
    public var needsTelling = false
}

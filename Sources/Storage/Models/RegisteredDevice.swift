public import Foundation
public import PassIdentifiers

/// One registration of a pass, as the admin API shows it.
public struct RegisteredDevice: Sendable, Equatable {
    public var deviceLibraryIdentifier: DeviceLibraryIdentifier
    public var registeredAt: Date
    /// The last `lastUpdated` tag the changed-serials list returned to this device in an answer
    /// listing this pass, and when; nil until the device first asked.
    public var toldRevision: Int64?
    public var toldAt: Date?
    /// Told the pass's current revision, and that revision was served since (see `Tally`).
    public var upToDate: Bool
}

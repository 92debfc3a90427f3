public import Foundation
public import PassIdentifiers

/// Reach marks gathered from many phones' requests, written together by
/// `StoreSession.reach.recordReach(_:)`: what each device was told and which revisions were served.
public struct ReachMarks: Sendable, Equatable {
    /// The changed-serials list returned `tag` to a device, listing its passes whose revision is
    /// in `(listedAfter, tag]` (`recordTold` writes one).
    public struct Told: Sendable, Hashable {
        public var deviceLibraryIdentifier: DeviceLibraryIdentifier
        public var passTypeIdentifier: PassTypeIdentifier
        public var listedAfter: Int64?
        public var tag: Int64
        public var at: Date

        public init(deviceLibraryIdentifier: DeviceLibraryIdentifier, passTypeIdentifier: PassTypeIdentifier, listedAfter: Int64?, tag: Int64, at: Date) {
            self.deviceLibraryIdentifier = deviceLibraryIdentifier
            self.passTypeIdentifier = passTypeIdentifier
            self.listedAfter = listedAfter
            self.tag = tag
            self.at = at
        }
    }

    /// Revision `revision` of a pass was served to a device (`recordServed` writes one).
    public struct Served: Sendable, Hashable {
        public var passTypeIdentifier: PassTypeIdentifier
        public var serialNumber: SerialNumber
        public var revision: Int64
        public var at: Date

        public init(passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, revision: Int64, at: Date) {
            self.passTypeIdentifier = passTypeIdentifier
            self.serialNumber = serialNumber
            self.revision = revision
            self.at = at
        }
    }

    public var told: [Told] = []
    public var served: [Served] = []

    public init(told: [Told] = [], served: [Served] = []) {
        self.told = told
        self.served = served
    }

    public var count: Int { told.count + served.count }
    public var isEmpty: Bool { told.isEmpty && served.isEmpty }
}

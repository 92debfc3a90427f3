public import PassIdentifiers

/// What a phone's fetch of its pass needs while the signed bundle is cached: the token hash to
/// authenticate, the revision naming the bundle, `Last-Modified`, and whether the revision was
/// served before (reach). A few fixed-size columns of one index lookup, where the whole pass and
/// its event (the design's JSON among them) are only needed to sign a bundle.
public struct PassHead: Sendable, Equatable {
    public var passTypeIdentifier: PassTypeIdentifier
    public var serialNumber: SerialNumber
    public var authenticationTokenHash: [UInt8]
    /// The global revision of the last change (`StoredPass.revision`).
    public var revision: Int64
    /// Whole seconds since 1970: the `Last-Modified` value (`StoredPass.modifiedAt`).
    public var modifiedAt: Int64
    /// The highest revision served to a device; nil before the first (`StoredPass.servedRevision`).
    public var servedRevision: Int64?

    public init(
        passTypeIdentifier: PassTypeIdentifier, serialNumber: SerialNumber, authenticationTokenHash: [UInt8], revision: Int64, modifiedAt: Int64,
        servedRevision: Int64?
    ) {
        self.passTypeIdentifier = passTypeIdentifier
        self.serialNumber = serialNumber
        self.authenticationTokenHash = authenticationTokenHash
        self.revision = revision
        self.modifiedAt = modifiedAt
        self.servedRevision = servedRevision
    }

    /// The head of a pass read whole.
    public init(_ pass: StoredPass) {
        self.init(
            passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, authenticationTokenHash: pass.authenticationTokenHash,
            revision: pass.revision, modifiedAt: pass.modifiedAt, servedRevision: pass.servedRevision
        )
    }
}

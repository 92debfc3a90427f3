/// One pass of `StoreSession.passes.importPasses`, in the order given.
public struct ImportedPass: Sendable, Equatable {
    public var pass: StoredPass
    /// False when the event already had a pass with the same external id: that pass is returned
    /// as it is, and nothing was written for this one.
    public var created: Bool

    public init(pass: StoredPass, created: Bool) {
        self.pass = pass
        self.created = created
    }
}

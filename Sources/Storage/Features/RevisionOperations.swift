/// The global revision counter. Reached as `session.revisions`.
public struct RevisionOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// The global revision counter.
    public var revisions: RevisionOperations { RevisionOperations(session: self) }
}

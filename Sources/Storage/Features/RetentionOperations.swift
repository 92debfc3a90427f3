/// Deleting what is kept only for a while. Reached as `session.retention`.
public struct RetentionOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Deleting what is kept only for a while.
    public var retention: RetentionOperations { RetentionOperations(session: self) }
}

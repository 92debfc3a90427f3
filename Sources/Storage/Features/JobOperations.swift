/// Background jobs: re-pushes and email batches. Reached as `session.jobs`.
public struct JobOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Background jobs: re-pushes and email batches.
    public var jobs: JobOperations { JobOperations(session: self) }
}

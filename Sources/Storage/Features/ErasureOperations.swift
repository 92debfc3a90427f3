/// Deleting events and erasing attendees' data. Reached as `session.erasure`.
public struct ErasureOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Deleting events and erasing attendees' data.
    public var erasure: ErasureOperations { ErasureOperations(session: self) }
}

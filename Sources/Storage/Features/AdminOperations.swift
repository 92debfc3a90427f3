/// Admin API tokens, dashboard sessions and the device log. Reached as `session.admin`.
public struct AdminOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Admin API tokens, dashboard sessions and the device log.
    public var admin: AdminOperations { AdminOperations(session: self) }
}

/// Named leases that one process at a time holds. Reached as `session.leases`.
public struct LeaseOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Named leases that one process at a time holds.
    public var leases: LeaseOperations { LeaseOperations(session: self) }
}

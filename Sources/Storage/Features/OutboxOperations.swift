/// The push outbox, and the settlement every outbox shares. Reached as `session.outbox`.
public struct OutboxOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// The push outbox, and the settlement every outbox shares.
    public var outbox: OutboxOperations { OutboxOperations(session: self) }
}

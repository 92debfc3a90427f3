/// Orders and their tickets. Reached as `session.orders`.
public struct OrderOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Orders and their tickets.
    public var orders: OrderOperations { OrderOperations(session: self) }
}

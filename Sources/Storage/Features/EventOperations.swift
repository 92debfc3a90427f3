/// Events: creating, reading, updating, listing, archiving. Reached as `session.events`.
public struct EventOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Events: creating, reading, updating, listing, archiving.
    public var events: EventOperations { EventOperations(session: self) }
}

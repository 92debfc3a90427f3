/// Passes: inserting, reading, updating, searching, importing. Reached as `session.passes`.
public struct PassOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Passes: inserting, reading, updating, searching, importing.
    public var passes: PassOperations { PassOperations(session: self) }
}
